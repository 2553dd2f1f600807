"""Every language: strict catalogs, glossaries, links between languages, theme strings, Chinese search."""
