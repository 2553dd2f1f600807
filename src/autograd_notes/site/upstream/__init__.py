"""What the site reads of sphinx-gallery, myst-nb, furo and Sphinx: their output, configuration, internals.

:mod:`.outputs` and :mod:`.gallery_rst`: the generated pages;
:mod:`.gallery_conf`: sphinx-gallery's configuration; :mod:`.names`: the
names of internals (a post-transform, output classes, Sphinx's stemmer
scripts). Each is tested against the real package.
"""
