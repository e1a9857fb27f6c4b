"""Output layer: text, markdown and HTML renderings of results (public API only)."""
