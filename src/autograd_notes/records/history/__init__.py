"""History: the records of every PyTorch release, and what changed between them.

:mod:`.releases` reads the records of each release, :mod:`.runners` pairs
every record of an example (runners × releases), :mod:`.timeline` follows each
documented check across releases, :mod:`.timeline_changes` and
:mod:`.timeline_summary` say what changed, :mod:`.changelog` prints it for the
terminal and :mod:`.notes` writes the release notes the helpers ship.
"""
