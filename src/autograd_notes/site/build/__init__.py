"""Building the site: every language, the caches keyed by what pages depend on, stale outputs, leaks."""
