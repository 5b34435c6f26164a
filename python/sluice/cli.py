"""The ``sluice`` command."""

import argparse
import sys


def _info(args):
    from sluice import _ops, backend

    print(f"sluice {__import__('sluice').__version__}")
    print(f"CUDA support: {backend.built_with_cuda()}, devices: {backend.cuda_device_count()}, "
          f"nvJPEG: {backend.built_with_nvjpeg()}")
    print("operators:")
    for name, s in sorted(_ops.SCHEMAS.items()):
        if not s["internal"]:
            print(f"  {name:32s} {', '.join(s['devices'])}")
    return 0


def main(argv=None):
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C: one line, not a traceback
        print("\nsluice: interrupted", file=sys.stderr)
        return 130


def _main(argv):
    import sluice

    parser = argparse.ArgumentParser(prog="sluice",
                                     description="Sluice: data pipelines that feed GPUs in training")
    parser.add_argument("--version", action="version", version=f"sluice {sluice.__version__}")
    sub = parser.add_subparsers(dest="command")
    from sluice.tools import bench, make_dataset

    bench.add_parser(sub)
    make_dataset.add_parser(sub)
    from sluice.tools import rec2idx, tfrecord2idx

    tfrecord2idx.add_parser(sub)
    rec2idx.add_parser(sub)
    sub.add_parser("info", help="build information and the list of operators",
                   description="Prints the version, CUDA and nvJPEG support of this build and "
                   "the operators it has.").set_defaults(func=_info)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
