"""Scripts that make the README's pictures (see __main__)."""
