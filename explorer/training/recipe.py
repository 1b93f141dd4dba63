"""Training recipes: a run's whole configuration as a file in the repository, which the training CLI reads.

A recipe is a module in `explorer/training/recipes/` (or a .py file named by path) that defines
`RECIPE = Recipe(...)`: the `TrainConfig`, and what the checkpoint says about itself (its name, the
credit its data asks for, its known limits). The checkpoint stores the recipe's text and the model card
quotes it, so "how was this model trained" is one file, not a long command line.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, replace
from pathlib import Path

from ..model.metadata import validate_metadata
from .trainer import TrainConfig

RECIPES_PACKAGE = "explorer.training.recipes"


@dataclass(frozen=True)
class DataSource:
    """One training corpus of a recipe: where it is, how often an epoch takes it, and its licence."""

    spec: str  # a corpus spec (data.read_corpus), relative to the repository root
    weight: float  # times per epoch: 2 upsamples, 0.1 takes a tenth (a new tenth every epoch)
    name: str  # what it is, for the model card
    licence: str  # its licence and the credit it asks for

    def fact(self) -> dict:
        return {"spec": self.spec, "weight": self.weight, "name": self.name, "licence": self.licence}


@dataclass(frozen=True)
class Recipe:
    """A training configuration and the facts its checkpoint will carry.

    With `sources`, the config's corpora and weights are theirs (`config.data`, `config.data_weights`):
    each corpus is named once, with its weight and licence beside it.
    """

    config: TrainConfig
    name: str = ""  # the model's display name in the app and the card
    data_credit: str = ""  # attribution the training data's licence asks for
    known_limits: tuple[str, ...] = ()  # what the card warns about (domain, length, vocabulary)
    sources: tuple[DataSource, ...] = ()

    def __post_init__(self):
        if self.sources:
            config = replace(
                self.config, data=[s.spec for s in self.sources], data_weights=[s.weight for s in self.sources]
            )
            object.__setattr__(self, "config", config)


@dataclass(frozen=True)
class LoadedRecipe:
    recipe: Recipe
    name: str  # how it was named on the command line
    text: str  # the file, quoted by the model card

    def facts(self) -> dict:
        """The checkpoint metadata this recipe contributes."""
        file = self.name if self.name.endswith(".py") else f"explorer/training/recipes/{self.name}.py"
        facts = {"recipe": {"name": self.name, "file": file, "text": self.text}}
        if self.recipe.name:
            facts["name"] = self.recipe.name
        if self.recipe.data_credit:
            facts["data_credit"] = self.recipe.data_credit
        if self.recipe.known_limits:
            facts["known_limits"] = list(self.recipe.known_limits)
        if self.recipe.sources:
            facts["data_sources"] = [s.fact() for s in self.recipe.sources]
        return facts


def load_recipe(spec: str) -> LoadedRecipe:
    """A recipe by name (a module of explorer/training/recipes/) or by the path of a .py file."""
    if spec.endswith(".py"):
        path = Path(spec)
        if not path.is_file():
            raise ValueError(f"recipe file {spec} does not exist")
        module_spec = importlib.util.spec_from_file_location(f"recipe_{path.stem}", path)
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
    else:
        if not spec.isidentifier():
            raise ValueError(
                f"recipe {spec!r} is neither a recipe name nor a .py file; known: {', '.join(known_recipes())}"
            )
        try:
            module = importlib.import_module(f"{RECIPES_PACKAGE}.{spec}")
        except ModuleNotFoundError:
            raise ValueError(f"no recipe named {spec!r}; known: {', '.join(known_recipes())}") from None
        path = Path(module.__file__)
    recipe = getattr(module, "RECIPE", None)
    if not isinstance(recipe, Recipe):
        raise ValueError(f"recipe {spec} defines no RECIPE = Recipe(...)")
    loaded = LoadedRecipe(recipe, spec, path.read_text(encoding="utf-8"))
    try:  # what the checkpoint will carry is checked now, not when it is loaded after hours of training
        validate_metadata(loaded.facts(), recipe.config.model)
    except ValueError as exc:
        raise ValueError(f"recipe {spec}: {exc}") from None
    return loaded


def known_recipes() -> list[str]:
    folder = Path(__file__).parent / "recipes"
    return sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")
