"""The model converter: MindIR or ONNX in, a `.ms` file out (mindspore_lite.Converter and `converter_lite`).

    converter_lite --fmk=MINDIR --modelFile=lenet.mindir --outputFile=lenet [--fp16=on] [--configFile=q.cfg]
    converter_lite --fmk=MINDIR --trainModel=true --modelFile=lenet_train.mindir --outputFile=lenet_train
    python -m openspore.lite.converter_lite --fmk=ONNX --modelFile=net.onnx --outputFile=net

Success prints `CONVERT RESULT SUCCESS:0`; a failure prints `CONVERT RESULT FAILED:<code>` after a message that
names the problem (for an unsupported operator: its type and node). Inference models go through
`passes.INFERENCE_PASSES` (constants folded, Conv/BN/bias/ReLU and Dense fused), then the quantization the
config file asks for; training models keep their graph (dead code removed) and gain the training description
(`training.describe`).
"""
import configparser
import os
import sys

from . import kernels, msfile
from .lower import load_mindir_program
from .passes import INFERENCE_PASSES, LAYOUT_PASSES, TRAINING_PASSES, run_passes
from .types import FmkType

SUCCESS, FAILED = 0, -1


class ConverterError(ValueError):
    pass


def convert_program(model_file, fmk="MINDIR", train=False, fp16=False, config=None, input_shapes=None):
    """The converted Program of a model file (nothing written)."""
    fmk = fmk.name if isinstance(fmk, FmkType) else str(fmk).upper()
    model_file = os.fspath(model_file)
    if fmk not in ("MINDIR", "ONNX"):
        raise ConverterError(f"converter: --fmk={fmk} is not supported; this converter reads MINDIR and ONNX.")
    if not os.path.isfile(model_file):
        raise FileNotFoundError(f"converter: the model file {model_file!r} does not exist.")
    if fmk == "MINDIR":
        program = load_mindir_program(model_file)
    elif fmk == "ONNX":
        if train:
            raise ConverterError("converter: --trainModel=true supports --fmk=MINDIR only (as MindSpore Lite).")
        from .onnx_import import load_onnx_program
        program = load_onnx_program(model_file, input_shapes)
    _check_kernels(program)
    config = config or {}
    if train:
        from .training import describe
        program = describe(run_passes(program, TRAINING_PASSES))
    else:
        program = run_passes(program, INFERENCE_PASSES)
        quant = config.get("common_quant_param")
        if quant:
            from .quant_passes import quantize_program
            program = quantize_program(program, config)
        program = run_passes(program, LAYOUT_PASSES)
    if fp16:
        program.meta["fp16"] = True
    program.meta.update(converted_from=fmk, train=bool(train) or program.meta.get("train", False))
    return program


def _check_kernels(program):
    bad = {}
    for op in program.main.all_ops():
        if op.type not in ("if", "while") and not kernels.supported(op.type):
            bad.setdefault(op.type, []).append(op.name or "?")
    if bad:
        lines = "; ".join(f"{t} (node {', '.join(names[:3])})" for t, names in bad.items())
        raise kernels.UnsupportedOperator(f"converter: unsupported operator(s): {lines}.")


def read_config(config_file):
    if not config_file:
        return {}
    if not os.path.isfile(config_file):
        raise FileNotFoundError(f"converter: the config file {config_file!r} does not exist.")
    parser = configparser.ConfigParser()
    parser.optionxform = str
    try:
        parser.read(config_file)
    except configparser.Error as exc:
        raise ConverterError(f"converter: cannot parse the config file {config_file!r}: {exc}") from None
    return {s: {k: v.strip() for k, v in parser[s].items()} for s in parser.sections()}


class Converter:
    """Converter(): set options as attributes (`fp16`, `train_model`, `input_shape`, ...), then
    `convert(fmk_type, model_file, output_file, weight_file="", config_file="")` writes `output_file.ms`."""

    def __init__(self):
        self.fp16 = False
        self.train_model = False
        self.input_shape = {}
        self.input_format = None
        self.input_data_type = None
        self.output_data_type = None
        self.save_type = "MINDIR_LITE"
        self.optimize = "general"
        self.infer = False
        self.decrypt_key = ""
        self.decrypt_mode = "AES-GCM"
        self.enable_encryption = False
        self.encrypt_key = ""
        self.device = ""
        self._config = {}

    def set_config_info(self, section="", config_info=None):
        if not section or not isinstance(config_info, dict):
            raise ValueError("Converter.set_config_info: give a section name and a dict of its entries.")
        self._config.setdefault(section, {}).update({k: str(v) for k, v in config_info.items()})

    def get_config_info(self):
        return {s: dict(v) for s, v in self._config.items()}

    def convert(self, fmk_type, model_file, output_file, weight_file="", config_file=""):
        if not isinstance(fmk_type, FmkType):
            raise TypeError(f"Converter.convert: 'fmk_type' must be an FmkType, but got {fmk_type!r}.")
        config = read_config(config_file)
        for section, items in self._config.items():
            config.setdefault(section, {}).update(items)
        program = convert_program(model_file, fmk_type, self.train_model, self.fp16, config, self.input_shape)
        path = output_file if str(output_file).endswith(".ms") else f"{output_file}.ms"
        msfile.write(program, path)
        if self.infer:
            from .model import Model
            model = Model()
            model.build_from_program(program)
            model.predict(model.get_inputs())
        return path


# ---- converter_lite -------------------------------------------------------------------------------------------
_FLAGS = ("fmk", "modelFile", "outputFile", "weightFile", "trainModel", "fp16", "configFile", "inputShape",
          "saveType", "optimize", "inputDataFormat", "infer")
_USAGE = ("usage: converter_lite --fmk=MINDIR|ONNX --modelFile=<file> --outputFile=<name> [--trainModel=true|false] "
          "[--fp16=on|off] [--configFile=<file>] [--inputShape=name:1,3,32,32;name2:...] [--infer=true|false]")


def _parse(argv):
    opts = {}
    for arg in argv:
        if arg in ("--help", "-h"):
            return None
        if not arg.startswith("--") or "=" not in arg:
            raise ConverterError(f"converter_lite: bad argument {arg!r}: flags are --name=value (no spaces).")
        name, value = arg[2:].split("=", 1)
        if name not in _FLAGS:
            raise ConverterError(f"converter_lite: unknown flag --{name}; known flags: {', '.join(_FLAGS)}.")
        opts[name] = value
    for need in ("fmk", "modelFile", "outputFile"):
        if need not in opts:
            raise ConverterError(f"converter_lite: --{need} is required.")
    return opts


def _bool(opts, name, true=("true", "on"), false=("false", "off")):
    value = opts.get(name, "false").lower()
    if value not in true + false:
        raise ConverterError(f"converter_lite: --{name} must be one of {true + false}, but got {value!r}.")
    return value in true


def _shapes(text):
    shapes = {}
    for part in filter(None, (text or "").split(";")):
        name, _, dims = part.rpartition(":")
        try:
            shapes[name] = tuple(int(d) for d in dims.split(","))
        except ValueError:
            raise ConverterError(f"converter_lite: bad --inputShape entry {part!r} (expected name:1,3,32,32).") \
                from None
    return shapes


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts = _parse(argv)
        if opts is None:
            print(_USAGE)
            return 0
        fmk = opts["fmk"].upper()
        if fmk not in FmkType.__members__:
            raise ConverterError(f"converter_lite: --fmk must be one of {list(FmkType.__members__)}, but got "
                                 f"{opts['fmk']!r}.")
        conv = Converter()
        conv.train_model = _bool(opts, "trainModel")
        conv.fp16 = _bool(opts, "fp16")
        conv.infer = _bool(opts, "infer")
        conv.input_shape = _shapes(opts.get("inputShape"))
        path = conv.convert(FmkType[fmk], opts["modelFile"], opts["outputFile"],
                            config_file=opts.get("configFile", ""))
    except Exception as exc:  # noqa: BLE001 - the command reports every failure the same way
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        print(f"CONVERT RESULT FAILED:{FAILED}")
        return 1
    print(f"Converted model written to {path}", file=sys.stderr)
    print(f"CONVERT RESULT SUCCESS:{SUCCESS}")
    return 0
