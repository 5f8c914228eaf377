#!/usr/bin/env python3
"""Writes sdrify(1) from the argument definitions: `sdrify --experimental-dump-help` gives every command, option,
default and help text as JSON, so the man page never drifts from the binary.

usage: make-manpage.py SDRIFY_BINARY OUT.1
"""
import json
import subprocess
import sys


def roff(text):
    """Escapes text for roff: backslashes, and a leading dot or quote that roff would read as a request."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + line) if line.startswith((".", "'")) else line for line in text.split("\n"))


def option_heading(arg):
    names = [("-" if n["kind"] == "short" else "--") + n["name"] for n in arg.get("names", [])]
    heading = ", ".join(names)
    if arg["kind"] == "option":
        heading += " " + arg.get("valueName", "VALUE").join("<>")
    elif arg["kind"] == "positional":
        heading = arg.get("valueName", "ARG").join("<>")
    return heading


def command_section(cmd, path):
    lines = []
    title = " ".join(path)
    lines.append(f".SH {roff(title.upper())}")
    if cmd.get("abstract"):
        lines.append(roff(cmd["abstract"]))
    if cmd.get("discussion"):
        lines += [".PP", roff(cmd["discussion"])]
    args = [a for a in cmd.get("arguments", []) if a.get("shouldDisplay", True)
            and not any(n["name"] in ("help", "version", "experimental-dump-help") for n in a.get("names", []))]
    for arg in args:
        lines.append(".TP")
        lines.append(f"\\fB{roff(option_heading(arg))}\\fR")
        text = arg.get("abstract", "")
        if "defaultValue" in arg:
            text += f" (default: {arg['defaultValue']})"
        if arg.get("isRepeating") and arg["kind"] == "option":
            text += " May be repeated."
        lines.append(roff(text))
    for sub in cmd.get("subcommands", []):
        if sub["commandName"] != "help" and sub.get("shouldDisplay", True):
            lines += command_section(sub, path + [sub["commandName"]])
    return lines


def main():
    binary, out = sys.argv[1], sys.argv[2]
    dump = json.loads(subprocess.run([binary, "--experimental-dump-help"], check=True, capture_output=True).stdout)
    version = subprocess.run([binary, "--version"], check=True, capture_output=True, text=True).stdout.split("\n")[0]
    root = dump["command"]
    page = [
        f'.TH SDRIFY 1 "" "{roff(version)}" "User Commands"',
        ".SH NAME",
        f"sdrify \\- {roff(root['abstract'])}",
        ".SH SYNOPSIS",
        ".nf",
        "\\fBsdrify\\fR \\fIIN\\fR \\fIOUT\\fR [\\fB\\-\\-preset\\fR \\fINAME\\fR] [\\fIoptions\\fR]",
        "\\fBsdrify convert\\fR \\fIIN\\fR... \\fB\\-\\-output\\-dir\\fR \\fIDIR\\fR [\\fIoptions\\fR]",
        "\\fBsdrify\\fR \\fIsubcommand\\fR [\\fIoptions\\fR]",
        ".fi",
        ".SH DESCRIPTION",
        ".nf",
        roff(root.get("discussion", "")),
        ".fi",
    ]
    for sub in root.get("subcommands", []):
        if sub["commandName"] != "help":
            page += command_section(sub, ["sdrify", sub["commandName"]])
    page += [".SH SEE ALSO", "ffmpeg(1), ffprobe(1); the README and docs/ in the source tree."]
    with open(out, "w") as f:
        f.write("\n".join(page) + "\n")


if __name__ == "__main__":
    main()
