"""Hydra search-path plug-in: where svmbench's primary config (svmbench.conf) is composed, the
artefact packages' ``experiment/`` folders join the search path (svmbench.conf.search_path), so
the experiment group spans the per-paper folders. A plug-in, not ``hydra.searchpath`` in
config.yaml: a user's ``hydra.searchpath=[file:///my/conf]`` replaces that list and would hide
the papers' experiments; a plug-in's entries stay. Other Hydra apps are left alone."""

from hydra.core.config_search_path import ConfigSearchPath
from hydra.plugins.search_path_plugin import SearchPathPlugin

from svmbench.conf import CONF_DIR, CONF_PACKAGE, search_path

PRIMARY = {f"pkg://{CONF_PACKAGE}", str(CONF_DIR)}


class ArtefactConfigs(SearchPathPlugin):
    def manipulate_search_path(self, search_path_: ConfigSearchPath) -> None:
        if any(entry.provider == "main" and entry.path in PRIMARY
               for entry in search_path_.get_path()):
            for entry in search_path():
                search_path_.append(provider="svmbench", path=entry)
