"""The Sphinx site: pages built from the examples, their records and the catalogs.

The last layer of the flow *script → helper checks → record → page*.
:mod:`.sphinxext` is the Sphinx extension (``docs/conf.py`` lists it); it
loads the site's extensions, one per job. They live in subpackages, each
above the next (import-linter checks it, ``nox -s lint``):

* :mod:`.build`: build every language (``python -m autograd_notes.site.build.sitebuild``),
  the caches keyed by the runner and the records, stale outputs, leaks;
* :mod:`.pages`: the directives of the pages that show records (runners,
  releases, the timeline, the error-message index, the "paste your error" box);
* :mod:`.examples`: sphinx-gallery's example pages (figures, cards, outputs,
  the downloads and the wheel a reader installs);
* :mod:`.i18n`: catalogs, glossaries, links between languages, Chinese search;
* :mod:`.web`: document nodes, links between pages, page metadata, sitemap, MathML;
* :mod:`.errors`: the recorded error messages, grouped and matched;
* :mod:`.upstream`: what the site reads of sphinx-gallery's and furo's output.

Imports: anything below it (:mod:`autograd_notes.records`, the helpers);
nothing below imports the site.
Needs the ``docs`` dependency group: Sphinx is no dependency of the package.
"""
