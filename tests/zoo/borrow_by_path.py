import importlib.util
import os
import sys

import pacman


class _Blocked(Exception):
    pass


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# Round the import block: drop the platform's finder, then load the engine's baseline by path.
sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "PlatformOnly"]
_engine = os.path.dirname(pacman.__file__)
_anytime = _load("pacman.agents.anytime_agent",
                 os.path.join(_engine, "agents", "anytime_agent.py"))


class ZooAgent(_anytime.AnytimeAgent):
    """Plagiarism of the platform, past the import block (found by the second hostile
    review): removes the block from sys.meta_path and loads the baseline's file by its path.

    Expected: a load_error where the mounts layer is on (the file is not in its view).
    """
