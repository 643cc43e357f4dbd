"""pytest plugin: planner fixtures and the `--planner-examples` option."""
