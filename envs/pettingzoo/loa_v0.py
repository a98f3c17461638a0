"""Lines of Action as a PettingZoo AEC env: ``loa_v0.env(render_mode=None, **rule_params)`` (see ``envs.pz_env``)."""

from functools import partial

from ..pz_env import env as _env, raw_env as _raw_env

env = partial(_env, "loa")
raw_env = partial(_raw_env, "loa")
