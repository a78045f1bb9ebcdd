"""The Hydra ``dataset`` group, taken from the registry: the registry is the only description of a
data set (files, checksums via svmbench.data.checksums, sizes, task, source), and no copy of it
lives in svmbench/conf/.

``store_dataset_configs()`` puts one config per registered data set in Hydra's ConfigStore, as
``dataset=<key>``: ``name``, the paper's name and whether features are scaled to [-1, 1].
"""

from __future__ import annotations

from hydra.core.config_store import ConfigStore

from svmbench.data.registry import REGISTRY, DatasetSpec


def dataset_config(spec: DatasetSpec) -> dict:
    # Adult/Web stay sparse 0/1 as the papers used them; raw UCI data is scaled to [-1, 1]
    return {"name": spec.name,
            "paper_name": spec.paper_names[0] if spec.paper_names else spec.name,
            "scale": bool(spec.scale)}


def store_dataset_configs() -> None:
    store = ConfigStore.instance()
    for name, spec in REGISTRY.items():
        store.store(group="dataset", name=name, node=dataset_config(spec))
