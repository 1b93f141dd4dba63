"""The Translate tab's example sentences and what each teaches; the page opens on the first, and the training
time-lapse (`timelapse.py`) records them. Each is translated right by the default model (tests/test_shipped_model.py)
and aligned by hand (`alignments/`)."""

EXAMPLES = [
    ("I know that he reads a book every day.", "verb-final subordinate clause (dass … liest)"),
    ("The train arrives at eight o'clock.", "separable verb (kommt … an)"),
    ("She calls her mother every evening.", "separable verb (ruft … an)"),
    ("I have seen the big dog in the garden.", "perfect tense: participle at the end"),
    ("We want to buy a new car tomorrow.", "modal verb: infinitive at the end"),
    ("The man gives a book to the woman.", "case: dative and accusative (der Frau moves before ein Buch)"),
    ("The little girl likes her new teacher.", "gender and adjective agreement (ihren neuen Lehrer)"),
    ("This layer has four heads.", "the field's words: compare with the Tatoeba model (Lager, Schädel)"),
    ("The model predicts the next word.", "separable verb (sagt … vorher)"),
    ("The student asks the teacher a question.", "dative object (dem Lehrer)"),
    (
        "When I came home yesterday evening, my mother was sitting in the kitchen and reading a book.",
        "a long sentence: verb second after a clause (Als … kam, saß …)",
    ),
]
OPENING_EXAMPLE = EXAMPLES[0][0]  # the page opens on it, decoded
