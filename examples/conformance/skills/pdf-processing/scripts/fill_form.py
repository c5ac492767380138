"""Fills a PDF form: fill_form.py INPUT.pdf OUTPUT.pdf '{"field": "value"}'."""
import json
import sys


def main() -> None:
    source, target, values = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    print(f"would fill {len(values)} fields of {source} into {target}")


if __name__ == "__main__":
    main()
