"""Which page of the site explains an error: the matcher, the index the package ships, the command, the hooks.

* :mod:`.match`: a pasted message or traceback against the recorded ones
  (the algorithm of the site's "paste your error" box);
* :mod:`.index`: ``error_index.json``, what the box ranks, with each
  page's title and first sentence in every language;
* :mod:`.cli`: ``python -m autograd_notes explain``;
* :mod:`.hooks`: the line under an error's traceback, in a script
  (:func:`~.hooks.explain_errors`) or in IPython (``%load_ext autograd_notes``).

Standard library only: nothing here imports PyTorch.
"""
