"""sphinx-gallery's example pages: figures, alt text, cards, outputs, and the downloads a reader runs."""
