"""The file edge: safe YAML with positions, bounded reads, suite discovery, the shipped schema, file
references, the suite loader, the results file, and every output written safely."""
