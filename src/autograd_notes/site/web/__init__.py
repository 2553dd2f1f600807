"""Pages for the web: document nodes, links between pages, page metadata, sitemap, MathML, static files."""
