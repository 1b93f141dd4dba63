"""The Translate tab's example sentences and what each teaches; the page opens on the first, and the training
time-lapse (`timelapse.py`) records them."""

EXAMPLES = [
    ("I know that he reads a book every day.", "verb-final subordinate clause (dass … liest)"),
    ("The train arrives at eight o'clock.", "separable verb (kommt … an)"),
    ("She calls her mother every evening.", "separable verb (ruft … an)"),
    ("I have seen the big dog in the garden.", "perfect tense: participle at the end"),
    ("We want to buy a new car tomorrow.", "modal verb: infinitive at the end"),
    ("The man gives the woman the book.", "case: dative and accusative"),
    ("The little girl likes her new teacher.", "gender and adjective agreement"),
    ("When I was a child, I often went to school by bus because my parents did not have a car.", "a long sentence"),
]
OPENING_EXAMPLE = EXAMPLES[0][0]  # the page opens on it, decoded
