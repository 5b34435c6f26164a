"""Command-line tools behind the ``sluice`` command."""

import argparse


class HelpFormatter(argparse.HelpFormatter):
    """Adds each option's default to its help, unless the help says it already or there is none
    (None, False)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if ("default" in text or any(action.default is x for x in (None, False, argparse.SUPPRESS))
                or not action.option_strings):
            return text
        return f"{text} (default: %(default)s)"
