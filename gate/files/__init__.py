"""The file edge: safe YAML with positions, bounded reads, suite discovery, the shipped schema, file
references, the suite loader, the results file, the GitHub event file, and every output written
safely."""

__all__ = [
    "discovery",
    "event_file",
    "file_references",
    "links",
    "outputs",
    "repository_writes",
    "results_file",
    "server_tools",
    "source_files",
    "suite_loader",
    "text_files",
    "yaml_source",
]
