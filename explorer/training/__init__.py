"""Training and evaluation: corpora, loss, the trainer and its recipes, BLEU/chrF evaluation, the model card.
May import `explorer.model` and `explorer.interpret`."""
