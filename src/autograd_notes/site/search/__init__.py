"""The site search: the questions each page answers, and what the search page ranks pages by."""
