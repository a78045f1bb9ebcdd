"""svmbench's Hydra configs, shipped inside the package and found as ``pkg://svmbench.conf``:
the primary config (config.yaml) and the groups algorithm/, protocol/, scale/, hydra/launcher/
and experiment/ (the quickstart). Each artefact package (ARTEFACT_PACKAGES: a seed paper's folder
under svmbench/papers/, the cross-solver boards) holds its own ``experiment/`` folder beside its
renderers; Hydra finds those folders on its search path (hydra_plugins/svmbench_searchpath), so
``+experiment=<name>`` sees one group wherever a config lives, from a checkout or an installed
wheel, from any working directory."""

from importlib import resources
from pathlib import Path

CONF_DIR = Path(__file__).resolve().parent
CONF_PACKAGE = "svmbench.conf"
ARTEFACT_PACKAGES = ("svmbench.boards", "svmbench.papers.fw", "svmbench.papers.gs2005",
                     "svmbench.papers.gs2008", "svmbench.papers.rosen", "svmbench.papers.tsang")


def search_path():
    """The ``pkg://`` search-path entries of the artefact packages, in ARTEFACT_PACKAGES order."""
    return [f"pkg://{package}" for package in ARTEFACT_PACKAGES]


def experiment_files():
    """name -> (package, path) of every experiment config: the artefact packages' and the
    primary config's own (``package`` None: no renderer beside it)."""
    found = {path.stem: (None, path) for path in (CONF_DIR / "experiment").glob("*.yaml")}
    for package in ARTEFACT_PACKAGES:
        folder = Path(str(resources.files(package).joinpath("experiment")))
        found.update({path.stem: (package, path) for path in folder.glob("*.yaml")})
    return dict(sorted(found.items()))
