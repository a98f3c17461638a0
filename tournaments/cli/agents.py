"""``arbiter agents``: the registered agents, with the option values that apply."""

from __future__ import annotations

import inspect

import agents
import envs

from ._common import game_params


def add(sub):
    p = sub.add_parser("agents", help="list the agents with a line on each and the option values that apply")
    p.add_argument(
        "--game",
        choices=sorted(envs.GAMES),
        help="only the agents that can play this game, with the values that apply to it",
    )
    p.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a parameter of --game, e.g. -p size=9 (repeatable)",
    )


def _agent_settings(cls, games) -> tuple[dict, dict, str, str]:
    """(option -> value, option -> {value: games}, the games it plays, what it lacks here) of
    agent class ``cls`` built with its defaults: its ``settings`` on each of ``games`` that it
    plays (``check_game``); the second dict holds the options whose value differs between games;
    the last is why it cannot play on this machine (``check_ready``: an extra not installed), ""
    when it can. An agent that needs an option to be built (the gtp engine's command) shows its
    signature's defaults and its ``plays``."""

    options = agents.base.options_of(cls)
    try:
        agent = cls()
    except (agents.AgentError, TypeError):
        shown = {
            k: "(required)" if v is inspect.Parameter.empty or (v is None and k == "command") else v
            for k, v in options.items()
        }
        playable = [g.name for g in games if cls.applies_to(cls.__new__(cls), g)]
        return (shown, {}, ", ".join(playable), "") if playable else ({}, {}, "", "")
    per_game, lacks = {}, ""
    for game in games:
        try:
            agent.check_game(game)
        except agents.AgentError:
            continue
        per_game[game.name] = agent.settings(game)
        try:
            agent.check_ready(game)
        except agents.AgentError as e:
            lacks = lacks or str(e)
    if not per_game:
        return {}, {}, "", ""
    values, differ = {}, {}
    for key in next(iter(per_game.values())):
        seen: dict = {}
        for name, settings in per_game.items():
            seen.setdefault(repr(settings[key]), []).append(name)
        if len(seen) == 1:
            values[key] = next(iter(per_game.values()))[key]
        else:
            values[key] = "(per game)"
            differ[key] = seen
    if "seed" in options:
        values["seed"] = agent.seed
    return values, differ, ", ".join(per_game), lacks


def run(args) -> int:
    if args.game:
        games = [envs.make_game(args.game, **game_params(args.param))]
    else:
        if args.param:
            raise envs.ParameterError(f"-p {args.param[0]}: game parameters need --game")
        games = [envs.make_game(spec.name) for spec in envs.specs()]
    for name in sorted(agents.REGISTRY):
        cls = agents.REGISTRY[name]
        values, differ, plays, lacks = _agent_settings(cls, games)
        if not plays:  # it plays none of the games
            continue
        print(f"{name}: {cls.describe()}")
        if not args.game:
            print(f"    plays: {plays}")
        if lacks:
            print(f"    not on this machine: {lacks}")
        shown = ",".join(f"{k}={v if v in ('(required)', '(per game)') else repr(v)}" for k, v in values.items())
        print(f"    {name}:{shown}" if shown else f"    {name}")
        for key, seen in differ.items():
            print(f"        {key}: " + "; ".join(f"{value} on {', '.join(names)}" for value, names in seen.items()))
    if not args.game:
        print(
            "(values as they apply to each game with its default parameters; "
            "arbiter agents --game G -p KEY=VALUE for one game)"
        )
    return 0
