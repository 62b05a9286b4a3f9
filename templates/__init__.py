"""jinja2 templates for Markdown and LaTeX (data only)."""
