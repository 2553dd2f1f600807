"""The error messages the records hold: grouped into families, and matched against a pasted error."""
