"""Drift: how a new capture differs from the records, and the report that says it.

:mod:`.compare` finds every difference, as data (:mod:`.printed` says which printed
text counts as the same); :mod:`.baseline` chooses
what a drift check compares with; :mod:`.report` renders the report, for
people and for tools.
"""
