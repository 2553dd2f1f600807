"""The Sphinx site: pages built from the examples, their records and the catalogs.

The last layer of the flow *script → helper checks → record → page*.
:mod:`.sphinxext` is the Sphinx extension (``docs/conf.py`` lists it); it
loads the site's extensions, one per job (listed in its docstring): directives that show records on the pages
(:mod:`.runners_page`, :mod:`.errors_page`), page metadata and the sitemap
(:mod:`.page_meta`, :mod:`.sitemap`), MathML, Chinese search, catalogs
(:mod:`.catalogs`), the reader's downloads (:mod:`.downloads`) and the
leak check (:mod:`.leaks`). :mod:`.sitebuild` builds every language:
``python -m autograd_notes.site.sitebuild``.

Imports: anything below it (:mod:`autograd_notes.records`, the helpers);
nothing below imports the site (checked by import-linter in ``nox -s lint``).
Needs the ``docs`` dependency group: Sphinx is no dependency of the package.
"""
