"""Rendering the results: Markdown (PR comment, job summary), JUnit XML, the console's closing lines and
the JSON results codec (encode, decode, merge shards). Pure: writing files is ``gate.files``'s."""
