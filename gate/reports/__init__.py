"""Rendering the results: Markdown (PR comment, job summary), HTML, JUnit XML, the console's closing
lines. Pure: writing files is ``gate.files``'s; the JSON results file is ``gate.results_json``'s."""

__all__ = ["console", "html", "junit", "markdown"]
