"""A tournament as one self-contained HTML page: ``arbiter report run.db -o report.html``.

    import tournaments
    tournaments.report.write_report("run.db", "report.html")     # or a TournamentResult

The page is what a tournament director hands round after the event, so it must open anywhere,
offline, years later: one file, inline CSS and JavaScript, no fonts, libraries or CDN. It shows
the standings, the crosstable as a heat map, the Bradley–Terry ratings with their 95% intervals
(an inline SVG) and the rating table (games, score, draws, likelihood of superiority, the
probability of being the best, colour pairs as pentanomials: ``tournaments.statistics``), the
trust line (how often the study's simulator finds the true best in a run like this one, and the
games per pairing that would settle it: ``tournaments.trust``), colour statistics (how each agent scored with Black and with White: a first-move
advantage shows up here before it distorts the ranking) and every game, replayable ply by ply on a
board drawn in a ``<canvas>`` (buttons, or the arrow keys, Home and End).

Boards are read from the game's ``observation(state, 0)``: planes 0 and 1 hold Black's and
White's pieces for every two-player board game (LOA, Othello, Gomoku, Go), so one drawing routine
serves them all and any board game registered later. Each ply's board is embedded as a string of
``n*n`` characters (``.``, ``b``, ``w``), with the cells to mark for the last move: the placed stone
of a placement game, or for a moving game (LOA) the square the piece left and the one it reached.

A journal is read, never written: its configuration and records are loaded and its results
replayed through the referee (``load_journal``), which recomputes the places exactly as the run
did; an unfinished journal gives the standings so far and says how many games were played.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Mapping
from typing import Any

import numpy as np

import envs
from envs import render
from envs.core import kernel as C

from ..analysis.sprt import format_elo
from ..analysis.statistics import by_name, percent
from .journal import JournalError
from .outputs import check_file
from .reading import load_journal
from .runner import TournamentResult, conditions_lines, place_text


# -- boards ----------------------------------------------------------------------------------------
def _cells(obs) -> str:
    """A board as ``n*n`` characters: ``b`` Black, ``w`` White, ``.`` empty (row 0 first)."""
    black, white = obs[0].ravel() > 0, obs[1].ravel() > 0
    return "".join("b" if b else "w" if w else "." for b, w in zip(black, white))


def _board_info(game) -> dict:
    """How to draw the game's board: size, style and coordinate labels in its notation."""
    n = game.observation(game.initial_state(seed=0), 0).shape[-1]
    if game.spec.placement:
        columns, rows = render._labels(game, n)
        style = game.spec.board_style
    else:  # a moving game (LOA): chess-like files and ranks on a checkerboard
        columns, rows = [chr(ord("a") + c) for c in range(n)], [str(n - r) for r in range(n)]
        style = "checker"
    return {"n": n, "style": style, "columns": list(columns), "rows": list(rows)}


def replay(game: envs.Game, record: Mapping[str, Any]) -> dict[str, Any]:
    """Every position of a game record: ``boards[k]`` after ``k`` plies, and per ply the cells
    to mark (``dots``: where a piece was placed or arrived; ``frames``: where it came from)."""
    state = game.initial_state(seed=record["seed"])
    n = game.observation(state, 0).shape[-1]
    prev = game.observation(state, 0)
    boards, marks = [_cells(prev)], [[[], []]]
    for ply, move in enumerate(record["moves"]):
        mover = game.current_player(state)
        try:
            state = game.apply(state, game.str_to_action(state, move))
        except ValueError as e:
            raise JournalError(f"game {record['index']}, ply {ply + 1}: {move!r} does not replay ({e})") from None
        obs = game.observation(state, 0)
        if game.spec.placement:
            last = int(state[C.H_LAST])
            dots, frames = ([last] if 0 <= last < n * n else []), []
        else:
            mine_before, mine_after = prev[mover].ravel() > 0, obs[mover].ravel() > 0
            dots = np.flatnonzero(mine_after & ~mine_before).tolist()
            frames = np.flatnonzero(mine_before & ~mine_after).tolist()
        boards.append(_cells(obs))
        marks.append([dots, frames])
        prev = obs
    return {"boards": boards, "marks": marks}


# -- statistics ------------------------------------------------------------------------------------
def colour_stats(result: TournamentResult) -> dict:
    """Black's results overall and each agent's score (points, games) with Black and with White."""
    n = len(result.names)
    black = np.zeros((n, 2))
    white = np.zeros((n, 2))
    games = by_name(result.names, result.games)  # each game credited to the agents it names
    outcomes = [o for o in result.outcomes() if not o.void]  # a double forfeit had no colours
    for g, outcome in zip((g for g, o in zip(games, result.outcomes()) if not o.void), outcomes):
        black[g["black_id"]] += (outcome.points(0), 1)
        white[g["white_id"]] += (outcome.points(1), 1)
    total = len(outcomes)
    return {
        "black_wins": sum(o.winner == 0 for o in outcomes),
        "draws": sum(o.draw for o in outcomes),
        "white_wins": sum(o.winner == 1 for o in outcomes),
        "black_score": sum(o.points(0) for o in outcomes) / total if total else None,
        "agents": [{"name": result.names[i], "black": black[i].tolist(), "white": white[i].tolist()} for i in range(n)],
    }


def _heat(fraction: float) -> str:
    """Red (0) through white (1/2) to green (1): the row player's share of the points."""
    f = min(max(fraction, 0.0), 1.0)
    if f < 0.5:
        t = f / 0.5
        r, g, b = 230, int(110 + 145 * t), int(110 + 145 * t)
    else:
        t = (f - 0.5) / 0.5
        r, g, b = int(255 - 155 * t), int(255 - 55 * t), int(255 - 145 * t)
    return f"rgb({r},{g},{b})"


def _ratings_svg(ratings) -> str:
    """Each agent's Bradley–Terry rating as a dot with its 95% interval, on a shared Elo axis."""
    if not ratings:
        return ""
    lo = min(e - h for _, e, h in ratings)
    hi = max(e + h for _, e, h in ratings)
    span = max(hi - lo, 1.0)
    step = next(s for s in (10, 20, 50, 100, 200, 500, 1000, 2000, 5000) if span / s <= 8)
    lo, hi = step * np.floor(lo / step), step * np.ceil(hi / step)
    left, width, row = 200, 480, 26
    height = row * len(ratings) + 40

    def x(v):
        return left + (v - lo) / (hi - lo) * width

    parts = [
        f'<svg id="ratings-plot" xmlns="http://www.w3.org/2000/svg" width="{left + width + 30}" '
        f'height="{height}" font-family="sans-serif" font-size="12">'
    ]
    for t in np.arange(lo, hi + step / 2, step):
        parts.append(
            f'<line x1="{x(t):.1f}" y1="10" x2="{x(t):.1f}" y2="{height - 24}" stroke="#ddd"/>'
            f'<text x="{x(t):.1f}" y="{height - 8}" text-anchor="middle">{t:+.0f}</text>'
        )
    for i, (name, elo, half) in enumerate(ratings):
        y = 22 + i * row
        parts.append(
            f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{html.escape(name)}</text>'
            f'<line x1="{x(elo - half):.1f}" y1="{y}" x2="{x(elo + half):.1f}" y2="{y}" '
            f'stroke="#36c" stroke-width="3"/><circle cx="{x(elo):.1f}" cy="{y}" r="5" fill="#124">'
            f"<title>{html.escape(name)}: {elo:+.0f} ± {half:.0f}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)


# -- the page --------------------------------------------------------------------------------------
def _page_data(result: TournamentResult) -> dict:
    game = envs.make_game(result.config["game"], **result.config.get("game_params", {}))
    games = []
    for g, outcome in zip(result.games, result.outcomes()):
        # how the replay's last ply is captioned: "0-1, two_passes, by 12.5", "1-0, resign"
        ending = ", ".join(
            [outcome.result, outcome.end_reason or outcome.reason]
            + ([f"by {outcome.margin:g}"] if outcome.margin else [])
        )
        games.append(
            {
                "index": g["index"],
                "round": g["round"],
                "black": g["black"],
                "white": g["white"],
                "result": outcome.result,
                "reason": outcome.reason,
                "ending": ending,
                "detail": outcome.detail,
                "opening": g.get("opening", 0),
                "moves": g["moves"],
                **replay(game, g),
            }
        )
    return {"board": _board_info(game), "games": games}


CSS = """
body { font-family: sans-serif; margin: 1.5em; color: #222; max-width: 1200px; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5em 0; }
td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
td.name, th.name { text-align: left; }
.warn { background: #fff3cd; padding: .5em; border: 1px solid #e0c060; }
.trust { background: #eef4fb; padding: .5em; border-left: 4px solid #36c; max-width: 60em; }
#games-list { max-height: 320px; overflow-y: auto; display: inline-block; vertical-align: top; }
#games-list tr { cursor: pointer; } #games-list tr.selected { background: #cde; }
#viewer { display: inline-block; vertical-align: top; margin-left: 1.5em; }
#viewer button { font-size: 1em; min-width: 2.5em; }
#moves { max-width: 520px; font-family: monospace; line-height: 1.6; }
#moves span { cursor: pointer; padding: 0 2px; } #moves span.current { background: #fd6; }
#moves span.opening { color: #888; }
"""

JS = r"""
(function () {
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const B = data.board, n = B.n;
  const cell = Math.max(18, Math.min(40, Math.floor(440 / n))), margin = 24, size = n * cell;
  const canvas = document.getElementById('board');
  canvas.width = canvas.height = size + 2 * margin;
  const ctx = canvas.getContext('2d');
  const viewer = { game: 0, ply: 0 };
  window.arbiterViewer = viewer;

  function disc(x, y, r, fill, stroke) {
    ctx.beginPath(); ctx.arc(x, y, r, 0, 2 * Math.PI); ctx.fillStyle = fill; ctx.fill();
    if (stroke) { ctx.lineWidth = 1.2; ctx.strokeStyle = stroke; ctx.stroke(); }
  }
  function centre(i) { return [margin + (i % n) * cell + cell / 2, margin + Math.floor(i / n) * cell + cell / 2]; }

  function draw() {
    const g = data.games[viewer.game], board = g.boards[viewer.ply], marks = g.marks[viewer.ply];
    ctx.fillStyle = '#f5f0e6'; ctx.fillRect(0, 0, canvas.width, canvas.height);
    const inter = B.style === 'intersections';
    if (B.style === 'checker') {
      for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) {
        ctx.fillStyle = (r + c) % 2 ? '#b58863' : '#eedcb4';
        ctx.fillRect(margin + c * cell, margin + r * cell, cell, cell);
      }
    } else {
      ctx.fillStyle = inter ? '#deb86c' : '#208048'; ctx.fillRect(margin, margin, size, size);
      ctx.strokeStyle = inter ? '#1e1e1e' : '#0a3c1e'; ctx.lineWidth = 1;
      for (let i = 0; i <= n - (inter ? 1 : 0); i++) {
        const at = margin + i * cell + (inter ? cell / 2 : 0) + 0.5;
        const a = margin + (inter ? cell / 2 : 0), b = margin + size - (inter ? cell / 2 : 0);
        ctx.beginPath(); ctx.moveTo(a, at); ctx.lineTo(b, at); ctx.moveTo(at, a); ctx.lineTo(at, b); ctx.stroke();
      }
    }
    for (let i = 0; i < n * n; i++) {
      const ch = board[i];
      if (ch === '.') continue;
      const [x, y] = centre(i);
      disc(x, y, cell * 0.42, ch === 'b' ? '#191919' : '#f5f5f5', '#1e1e1e');
    }
    ctx.strokeStyle = '#dc1e1e'; ctx.lineWidth = Math.max(2, cell / 12);
    for (const i of marks[1]) {
      const [x, y] = centre(i);
      ctx.strokeRect(x - cell / 2 + 1, y - cell / 2 + 1, cell - 2, cell - 2);
    }
    for (const i of marks[0]) { const [x, y] = centre(i); disc(x, y, cell * 0.13, '#dc1e1e'); }
    ctx.fillStyle = '#1e1e1e'; ctx.font = '12px sans-serif'; ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
    for (let c = 0; c < n; c++) {
      const x = margin + c * cell + cell / 2;
      ctx.fillText(B.columns[c], x, margin / 2); ctx.fillText(B.columns[c], x, margin + size + margin / 2);
    }
    for (let r = 0; r < n; r++) {
      const y = margin + r * cell + cell / 2;
      ctx.fillText(B.rows[r], margin / 2, y); ctx.fillText(B.rows[r], margin + size + margin / 2, y);
    }
    const last = g.moves.length;
    const end = viewer.ply === last ? ' (end: ' + g.ending + ')' : '';
    document.getElementById('ply').textContent = 'ply ' + viewer.ply + ' / ' + last +
      (viewer.ply ? ': ' + g.moves[viewer.ply - 1] : ': start') + end;
    document.querySelectorAll('#moves span').forEach((s, k) => s.classList.toggle('current', k + 1 === viewer.ply));
  }

  function select(k) {
    viewer.game = k; viewer.ply = 0;
    const g = data.games[k];
    document.querySelectorAll('#games-list tbody tr').forEach((tr, j) => tr.classList.toggle('selected', j === k));
    const why = g.detail ? ' [' + g.reason + ': ' + g.detail + ']' : '';
    document.getElementById('game-title').textContent = 'Game ' + (g.index + 1) + ' (round ' + g.round + '): ' +
      g.black + ' (Black) - ' + g.white + ' (White) ' + g.result + why;
    const moves = document.getElementById('moves');
    moves.textContent = '';
    g.moves.forEach((m, p) => {
      const s = document.createElement('span');
      s.textContent = (p % 2 === 0 ? (p / 2 + 1) + '. ' : '') + m;
      if (p < g.opening) { s.classList.add('opening'); s.title = 'opening'; }
      s.addEventListener('click', () => go(p + 1));
      moves.appendChild(s); moves.appendChild(document.createTextNode(' '));
    });
    draw();
  }
  function go(ply) {
    if (!data.games.length) return;
    viewer.ply = Math.max(0, Math.min(ply, data.games[viewer.game].moves.length)); draw();
  }
  viewer.select = select; viewer.go = go;
  document.getElementById('first').onclick = () => go(0);
  document.getElementById('prev').onclick = () => go(viewer.ply - 1);
  document.getElementById('next').onclick = () => go(viewer.ply + 1);
  document.getElementById('last').onclick = () => go(Infinity);
  document.addEventListener('keydown', (e) => {
    const keys = { ArrowLeft: () => go(viewer.ply - 1), ArrowRight: () => go(viewer.ply + 1),
                   Home: () => go(0), End: () => go(Infinity) };
    if (keys[e.key]) { keys[e.key](); e.preventDefault(); }
  });
  document.querySelectorAll('#games-list tbody tr').forEach((tr, j) => tr.addEventListener('click', () => select(j)));
  if (data.games.length) select(0);
})();
"""


def _fmt(x) -> str:
    return f"{x:g}"


LOS_MATRIX_MAX = 32  # agents up to which the page shows the full LOS matrix


def _statistics_html(stats) -> list[str]:
    """The rating table (margins, games, score, draws, the model's and the head-to-head LOS,
    P(best)), the fitted first-move advantage and draw parameter, both LOS matrices as heat maps
    and every encounter's colour pairs (``tournaments.statistics``)."""
    return [*_rating_table_html(stats), *_los_matrices_html(stats), *_colour_pairs_html(stats)]


def _rating_table_html(stats) -> list[str]:
    """The rating table with its legend, and the fitted first-move advantage and draw parameter."""
    esc = html.escape
    out = [
        (
            "<table id='rating-table'><thead><tr><th>#</th><th class='name'>agent</th><th>Elo</th><th>±</th>"
            "<th>games</th><th>score</th><th>draws</th>"
            "<th title='the model: posterior probability of being stronger than the next, from all games'>"
            "LOS(model)</th><th title='head to head, as cutechess computes it, over their own games'>LOS(h2h)</th>"
            "<th title='probability of being the strongest'>P(best)</th></tr></thead><tbody>"
        )
    ]
    for r in stats.ratings:
        out.append(
            f"<tr><td>{r.rank}</td><td class='name'>{esc(r.name)}</td><td>{round(r.elo):+d}</td>"
            f"<td>{r.margin:.0f}</td><td>{r.games}</td><td>{100 * r.score:.1f}%</td><td>{100 * r.draws:.1f}%</td>"
            f"<td>{'' if r.los_next is None else esc(percent(r.los_next))}</td>"
            f"<td>{'' if r.los_next is None else '-' if r.los_next_h2h is None else esc(percent(r.los_next_h2h))}</td>"
            f"<td>{esc(percent(r.p_best))}</td></tr>"
        )
    out.append(
        "</tbody></table><p>LOS(model): the model's likelihood that an agent is stronger than the next "
        "one in the table, from every game; LOS(h2h): the head-to-head likelihood as cutechess computes "
        "it, Φ((W−L)/√(W+L)) over the two agents' own games, draws ignored (-: no decisive game); "
        "P(best): the probability that it is the strongest of all (LOS(model) and P(best) from seeded "
        "draws of the ratings' exact posterior).</p>"
    )
    model = stats.model_line()
    if model:
        out.append(f"<p id='model'>{esc(model)}</p>")
    return out


def _los_matrices_html(stats) -> list[str]:
    """Both LOS matrices as heat maps, for 3 to ``LOS_MATRIX_MAX`` agents."""
    esc = html.escape
    out: list[str] = []
    n = len(stats.ratings)
    if 2 < n <= LOS_MATRIX_MAX:
        matrices = (
            (
                "los",
                stats.los,
                "Likelihood of superiority, the model's: LOS(model)",
                "The posterior probability that the row agent is stronger than the column agent, from "
                "every game (agents that never met compare through common opponents).",
            ),
            (
                "los-h2h",
                stats.h2h,
                "Likelihood of superiority head to head: LOS(h2h)",
                "As cutechess computes it: Φ((W−L)/√(W+L)) over the row and column agents' own games, "
                "draws ignored; empty where they had no decisive game.",
            ),
        )
        for key, matrix, title, words in matrices:
            out.append(
                f"<h3>{esc(title)}</h3><p>{esc(words)}</p><table id='{key}'><tr><th></th>"
                + "".join(f"<th title='{esc(r.name)}'>{i + 1}</th>" for i, r in enumerate(stats.ratings))
                + "</tr>"
            )
            for i, r in enumerate(stats.ratings):
                cells = "".join(
                    "<td style='background:#eee'></td>"
                    if i == j or np.isnan(matrix[i, j])
                    else f"<td style='background:{_heat(matrix[i, j])}'>{esc(percent(matrix[i, j]))}</td>"
                    for j in range(n)
                )
                out.append(f"<tr><th class='name'>{i + 1} {esc(r.name)}</th>{cells}</tr>")
            out.append("</table>")
    return out


def _colour_pairs_html(stats) -> list[str]:
    """Every encounter's colour pairs: games, points, pentanomial and the pairs' Elo."""
    esc = html.escape
    out: list[str] = []
    paired = [e for e in stats.encounters if e.pairs]
    if paired:
        out.append(
            "<h3>Colour pairs</h3><p>Two games from one opening with colours reversed make a pair; the "
            "pentanomial counts the pairs in which the first agent scored 0, ½, 1, 1½ and 2 points, and "
            "the Elo is the first agent's over the second from the pairs (95%).</p><table id='pairs'>"
            "<tr><th class='name'>encounter</th><th>games</th><th>points</th><th>pairs</th>"
            "<th>pentanomial</th><th>Elo</th></tr>"
        )
        for e in paired:
            out.append(
                f"<tr><td class='name'>{esc(e.a)} vs {esc(e.b)}</td><td>{e.games}</td><td>{_fmt(e.points)}</td>"
                f"<td>{e.pairs}</td><td>{' '.join(map(str, e.pentanomial))}</td>"
                f"<td>{esc(format_elo(e.elo, e.elo_lo, e.elo_hi))}</td></tr>"
            )
        out.append("</table>")
    return out


def _trust_html(trust) -> list[str]:
    """The trust line as a section (``tournaments.trust``)."""
    return ["<h2>Trust</h2>"] + [f"<p class='trust'>{html.escape(line)}</p>" for line in trust.sentences()]


def render_html(result: TournamentResult) -> str:
    """The report page of ``result`` (see the module docstring)."""
    out = _head_html(result)
    out += _standings_html(result)
    out += _crosstable_html(result)
    out += _ratings_html(result)
    out += _colours_html(result)
    out += _games_html(result)
    return "\n".join(out)


def _head_html(result: TournamentResult) -> list[str]:
    """The page's head and title, the run's size, conditions and whether it finished."""
    cfg = result.config
    esc = html.escape
    params = ", ".join(f"{k}={v}" for k, v in cfg.get("game_params", {}).items())
    options = ", ".join(f"{k}={v}" for k, v in cfg.get("options", {}).items())
    title = f"{cfg['system']}{f' ({options})' if options else ''} on {cfg['game']}{f' ({params})' if params else ''}"
    out = [
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{esc(title)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
        f"<p>{len(result.games)} games, {len(result.names)} agents, seed {cfg.get('seed')}"
        + (f", {cfg['move_time']} s per move" if cfg.get("move_time") else "")
        + (f", {len(result.byes)} byes" if result.byes else "")
        + ".</p>",
    ]
    out += [f"<p class='conditions'>{esc(line)}</p>" for line in conditions_lines(cfg)]  # clock, adjudication
    if cfg.get("finished") is False:
        out.append(
            f"<p class='warn' id='unfinished'>The tournament is not finished: the standings are "
            f"after the {len(result.games)} games played so far.</p>"
        )
    return out


def _standings_html(result: TournamentResult) -> list[str]:
    """The standings table."""
    esc = html.escape
    out: list[str] = []
    out.append(
        "<h2>Standings</h2><table id='standings'><thead><tr><th>place</th><th class='name'>agent</th>"
        "<th>points</th><th>games</th><th>W-D-L</th><th>forfeits</th></tr></thead><tbody>"
    )
    for s in result.standings():
        out.append(
            f"<tr><td>{esc(place_text(s.place, s.tied))}</td><td class='name'>{esc(s.name)}</td><td>{_fmt(s.points)}</td>"
            f"<td>{s.games}</td><td>{s.wins}-{s.draws}-{s.losses}</td><td>{s.forfeits}</td></tr>"
        )
    out.append("</tbody></table>")
    return out


def _crosstable_html(result: TournamentResult) -> list[str]:
    """The crosstable as a heat map of each pairing's share of the points."""
    esc = html.escape
    out: list[str] = []
    out.append(
        "<h2>Crosstable</h2><p>Points of the row agent against the column agent; the colour is its "
        "share of the points (red: lost, white: even, green: won).</p><table id='crosstable'><tr><th></th>"
        + "".join(f"<th title='{esc(nm)}'>{i + 1}</th>" for i, nm in enumerate(result.names))
        + "</tr>"
    )
    scores, played = result._matrix(result.outcomes())
    for i, name in enumerate(result.names):
        cells = []
        for j in range(len(result.names)):
            if i == j or played[i, j] == 0:
                cells.append("<td style='background:#eee'></td>")
            else:
                cells.append(
                    f"<td style='background:{_heat(scores[i, j] / played[i, j])}' "
                    f"title='{esc(name)} vs {esc(result.names[j])}'>"
                    f"{_fmt(scores[i, j])}/{_fmt(played[i, j])}</td>"
                )
        out.append(f"<tr><th class='name'>{i + 1} {esc(name)}</th>{''.join(cells)}</tr>")
    out.append("</table>")
    return out


def _ratings_html(result: TournamentResult) -> list[str]:
    """The ratings chart, the rating table's statistics and the trust line."""
    out: list[str] = []
    out.append("<h2>Ratings</h2><p>Bradley–Terry ratings on the Elo scale (mean 0) with 95% intervals.</p>")
    out.append(_ratings_svg(result.ratings()) if result.games else "<p>No games.</p>")
    if result.games:
        out += _statistics_html(result.statistics())
    out += _trust_html(result.trust())
    return out


def _colours_html(result: TournamentResult) -> list[str]:
    """How each agent scored with Black and with White."""
    esc = html.escape
    out: list[str] = []
    stats = colour_stats(result)
    out.append("<h2>Colours</h2>")
    if stats["black_score"] is not None:
        out.append(
            f"<p id='colour-summary'>Black won {stats['black_wins']}, drew {stats['draws']} and lost "
            f"{stats['white_wins']} games: Black's score {stats['black_score']:.3f}.</p>"
        )
    out.append("<table id='colours'><tr><th class='name'>agent</th><th>with Black</th><th>with White</th></tr>")
    for a in stats["agents"]:
        cell = [f"{_fmt(p)}/{_fmt(g)} ({p / g:.2f})" if g else "–" for p, g in (a["black"], a["white"])]
        out.append(f"<tr><td class='name'>{esc(a['name'])}</td><td>{cell[0]}</td><td>{cell[1]}</td></tr>")
    out.append("</table>")
    return out


def _games_html(result: TournamentResult) -> list[str]:
    """The list of games, the board viewer and the page's data and script."""
    esc = html.escape
    out: list[str] = []
    out.append(
        "<h2>Games</h2><p>Click a game; step with the buttons or the arrow keys (Home, End). "
        "Grey moves are the opening.</p><div id='games-list'><table><thead><tr><th>#</th><th>round</th>"
        "<th class='name'>Black</th><th class='name'>White</th><th>result</th><th>plies</th>"
        "<th class='name'>end</th></tr></thead><tbody>"
    )
    for g in result.games:
        out.append(
            f"<tr><td>{g['index'] + 1}</td><td>{g['round']}</td><td class='name'>{esc(g['black'])}</td>"
            f"<td class='name'>{esc(g['white'])}</td><td>{esc(g['result'])}</td><td>{len(g['moves'])}</td>"
            f"<td class='name'>{esc(g['reason'])}</td></tr>"
        )
    out.append(
        "</tbody></table></div><div id='viewer'><div id='game-title'></div><canvas id='board'></canvas>"
        "<div><button id='first' title='first (Home)'>|&lt;</button><button id='prev' title='previous (←)'>"
        "&lt;</button><button id='next' title='next (→)'>&gt;</button><button id='last' title='last (End)'>"
        "&gt;|</button> <span id='ply'></span></div><div id='moves'></div></div>"
    )
    # "<" escaped: no name or move can close the script element or open a comment inside it
    data = json.dumps(_page_data(result), separators=(",", ":")).replace("<", "\\u003c")
    out.append(f"<script type='application/json' id='report-data'>{data}</script>")
    out.append(f"<script>{JS}</script></body></html>")
    return out


def write_report(journal_or_result: str | os.PathLike[str] | TournamentResult, path: str | os.PathLike[str]) -> str:
    """Write the report of a journal file (or a ``TournamentResult``) to ``path``; returns the path."""

    check_file(path, "report")  # before the journal is read and the page built: an OutputPathError
    result = journal_or_result if isinstance(journal_or_result, TournamentResult) else load_journal(journal_or_result)
    page = render_html(result)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
    return os.fspath(path)
