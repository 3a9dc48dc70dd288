"""The Segmenter protocol and the registry that maps names to segmenters.

Every algorithm is a class with a ``name`` and ``segment(page) -> Segmentation``. Learnable
ones follow scikit-learn: hyper-parameters in ``__init__``, ``fit(pages, golds)`` returns self,
``save(path)`` / ``load(path)``, and a model shipped in the package so ``segment`` works out of
the box. The CLI and the harnesses only ever go through :func:`get_segmenter`, so an algorithm
becomes available everywhere by registering it once with :func:`register`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from webseg.page import Page
from webseg.segmentation import Segmentation


@runtime_checkable
class Segmenter(Protocol):
    """What the CLI, the harnesses and the application layers rely on."""

    name: str
    #: True when the algorithm needs rendered geometry (False: it runs on ``webseg.parse``).
    needs_layout: bool

    def segment(self, page: Page) -> Segmentation: ...


class ModelBacked:
    """The model half of a learnable segmenter: the shipped model loads on first use.

    A subclass is a dataclass with a ``model: str | None`` field (a model file; ``None`` means
    the one shipped in ``webseg/models``) and a ``_model`` field (``init=False``), and sets
    ``model_type`` to a class with ``load(path)`` and ``save(path)`` - or overrides
    :meth:`_read_model` when loading needs more than the path.
    """

    model_type: ClassVar[Any]
    model: str | None
    _model: Any

    def _read_model(self) -> Any:
        return self.model_type.load(self.model)

    def get_model(self) -> Any:
        if self._model is None:
            self._model = self._read_model()
        return self._model

    def set_model(self, model: Any) -> Any:
        self._model = model
        return self

    def save(self, path: str | Path) -> None:
        self.get_model().save(path)

    @classmethod
    def load(cls, path: str | Path, **params: Any) -> Any:
        return cls(model=str(path), **params)


_REGISTRY: dict[str, tuple[Callable[..., Segmenter], str]] = {}


def register(name: str, description: str = "") -> Callable[[Callable[..., Segmenter]],
                                                           Callable[..., Segmenter]]:
    """Class decorator (or factory decorator) that makes a segmenter available by ``name``."""

    def deco(factory: Callable[..., Segmenter]) -> Callable[..., Segmenter]:
        if name in _REGISTRY and _REGISTRY[name][0] is not factory:
            raise ValueError(f"segmenter {name!r} is already registered")
        doc = description or (factory.__doc__ or "").strip().splitlines()[0:1]
        _REGISTRY[name] = (factory, doc if isinstance(doc, str) else (doc[0] if doc else ""))
        return factory

    return deco


def available() -> dict[str, str]:
    """Registered segmenter names and their one-line descriptions, sorted by name."""
    _load_builtin()
    return {k: _REGISTRY[k][1] for k in sorted(_REGISTRY)}


def get_segmenter(name: str, **params: Any) -> Segmenter:
    """Instantiate the segmenter registered as ``name`` with hyper-parameters ``params``."""
    _load_for(name)
    try:
        factory = _REGISTRY[name][0]
    except KeyError:
        raise KeyError(f"unknown segmenter {name!r}; available: {', '.join(sorted(_REGISTRY))}"
                       ) from None
    return factory(**params)


def _load_for(name: str) -> None:
    """Register ``name``: the module of the same name first (``vips`` lives in ``vips.py``),
    every module when that does not register it. A run that uses one segmenter then does not
    import them all (cclus, gcuts and wps bring in scipy's spatial and optimisation modules:
    ~0.4 CPU s of every pipeline run)."""
    if _LOADED or name in _REGISTRY:
        return
    if name.isidentifier() and name != "base":
        import importlib

        mod = f"{__package__}.{name}"
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name != mod:
                raise
        if name in _REGISTRY:
            return
    _load_builtin()


def _load_builtin() -> None:
    """Import every module of :mod:`webseg.segmenters` once, so their ``@register`` runs.

    Lazy, to keep ``import webseg`` fast; automatic, so a new algorithm module registers itself
    by existing.
    """
    global _LOADED
    if _LOADED:
        return
    import importlib
    import pkgutil

    import webseg.segmenters as pkg

    for mod in pkgutil.iter_modules(pkg.__path__):
        if mod.name != "base":
            importlib.import_module(f"webseg.segmenters.{mod.name}")
    _LOADED = True


_LOADED = False
