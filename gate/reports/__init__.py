"""Rendering the results: Markdown (PR comment, job summary), JUnit XML, the console's closing lines,
the JSON results codec (encode, decode) and the shards of one run merged. Pure: writing files is
``gate.files``'s."""
