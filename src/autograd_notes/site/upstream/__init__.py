"""What the site reads of sphinx-gallery's and furo's output and configuration, in one place."""
