"""Reading a YAML stream: each document identified (from its lines, else libyaml's events), kept as
text and built only when a step needs its object; JSON files and Jinja2 output parsed under the limits."""
