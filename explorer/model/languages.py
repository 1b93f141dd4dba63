"""The language pair a checkpoint translates, stored in its config.json ("languages"), and the names a page shows.

A checkpoint written before the pair was stored translates English to German, as every model this project trained
does; a model converted from Marian names its pair from its tokenizer's config or its name ("opus-mt-en-fr").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# ISO 639-1/-3 codes of the languages opus-mt pairs most often, named in English; another code is shown as written
NAMES = {
    "ar": "Arabic",
    "bg": "Bulgarian",
    "ca": "Catalan",
    "cs": "Czech",
    "da": "Danish",
    "de": "German",
    "el": "Greek",
    "en": "English",
    "es": "Spanish",
    "et": "Estonian",
    "fi": "Finnish",
    "fr": "French",
    "ga": "Irish",
    "he": "Hebrew",
    "hi": "Hindi",
    "hu": "Hungarian",
    "id": "Indonesian",
    "is": "Icelandic",
    "it": "Italian",
    "ja": "Japanese",
    "ko": "Korean",
    "lt": "Lithuanian",
    "lv": "Latvian",
    "mul": "many languages",
    "nl": "Dutch",
    "no": "Norwegian",
    "pl": "Polish",
    "pt": "Portuguese",
    "ro": "Romanian",
    "ru": "Russian",
    "sk": "Slovak",
    "sl": "Slovenian",
    "sv": "Swedish",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "vi": "Vietnamese",
    "zh": "Chinese",
}
CODE = re.compile(r"[a-z]{2,3}(?:_[A-Za-z]{2,4})?")  # "en", "deu", "zh_Hant"


@dataclass(frozen=True)
class LanguagePair:
    """Source and target language codes, checked when built."""

    source: str = "en"
    target: str = "de"

    def __post_init__(self):
        for side in ("source", "target"):
            code = getattr(self, side)
            if not isinstance(code, str) or not CODE.fullmatch(code):
                raise ValueError(f"{side} language {str(code)[:40]!r} is not a language code such as en, de or fra")

    @property
    def source_name(self) -> str:
        return name(self.source)

    @property
    def target_name(self) -> str:
        return name(self.target)

    @property
    def label(self) -> str:
        """ "English → German"."""
        return f"{self.source_name} → {self.target_name}"

    def to_dict(self) -> dict:
        return {"source": self.source, "target": self.target}

    @classmethod
    def from_dict(cls, data: object) -> LanguagePair:
        """From config.json's "languages" (absent: this project's English → German)."""
        if data is None:
            return cls()
        if not isinstance(data, dict) or set(data) - {"source", "target"}:
            raise ValueError('"languages" must be an object with the keys source and target, e.g. {"source": "en"}')
        return cls(**data)


def name(code: str) -> str:
    """A language's English name ("fr" -> "French"), or its code when this table lacks it."""
    return NAMES.get(code, NAMES.get(code.split("_")[0], code))


def from_model_name(text: str) -> LanguagePair | None:
    """The pair in a model's name, as opus-mt writes it ("Helsinki-NLP/opus-mt-en-fr", "opus-mt-tc-big-en-de")."""
    found = re.search(r"(?:^|[-_/])([a-z]{2,3})-([a-z]{2,3})$", text.rstrip("/"))
    return LanguagePair(found.group(1), found.group(2)) if found else None
