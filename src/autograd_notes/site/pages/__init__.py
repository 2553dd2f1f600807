"""The directives of the pages that show records.

Each example's runners and releases, the timeline, the runners page, the
error-message index and the "paste your error" box.
"""
