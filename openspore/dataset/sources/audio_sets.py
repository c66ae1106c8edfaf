"""Speech and music sets read from their official layouts: CMU Arctic, GTZAN, LJSpeech, LibriTTS, Speech Commands,
TED-LIUM (NIST SPHERE audio, STM transcripts) and YesNo. Waveforms are float32 (channels, samples), n-bit PCM
divided by 2**(n-1) - 1 as MindSpore's readers do; the sample rate comes from each file's header.

>>> import os, tempfile, wave
>>> import numpy as np
>>> import openspore.dataset as ds
>>> root = tempfile.mkdtemp()
>>> with wave.open(os.path.join(root, "0_1_0_0_1_0_1_1.wav"), "wb") as w:
...     w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
...     w.writeframes(np.array([0, 16384, -32768], "<i2").tobytes())
>>> waveform, rate, label = next(ds.YesNoDataset(root).create_tuple_iterator(output_numpy=True))
>>> [round(v, 5) for v in waveform[0].tolist()], int(rate), label.tolist()
([0.0, 0.50002, -1.00003], 8000, [0, 1, 0, 0, 1, 0, 1, 1])
"""
import csv
import glob
import os
import re
import wave

import numpy as np

from .folder_base import RecordSource, _check_dir, check_choice, need_file


def read_wav(path, where):
    """A PCM WAV file as (float32 (channels, samples), sample rate)."""
    try:
        with wave.open(path, "rb") as w:
            channels, width, rate, frames = w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()
            data = w.readframes(frames)
    except (wave.Error, EOFError) as exc:
        raise RuntimeError(f"For '{where}', {path} is not a PCM WAV file: {exc}.") from None
    return _pcm_to_float(data, width, channels, path, where), rate


def _pcm_to_float(data, width, channels, path, where, little=True):
    if width == 1:
        samples = (np.frombuffer(data, np.uint8).astype(np.float32) - 128) / 127
    elif width in (2, 4):
        dtype = np.dtype(f"{'<' if little else '>'}i{width}")
        samples = (np.frombuffer(data, dtype).astype(np.float64) / float(2 ** (8 * width - 1) - 1)).astype(np.float32)
    elif width == 3:
        raw = np.frombuffer(data, np.uint8).reshape(-1, 3).astype(np.int32)
        if not little:
            raw = raw[:, ::-1]
        ints = raw[:, 0] | (raw[:, 1] << 8) | (raw[:, 2] << 16)
        samples = (np.where(ints >= 2 ** 23, ints - 2 ** 24, ints) / (2 ** 23 - 1)).astype(np.float32)
    else:
        raise RuntimeError(f"For '{where}', {path} has {width}-byte samples; expected 1 to 4.")
    return np.ascontiguousarray(samples.reshape(-1, channels).T)


def read_sphere(path, where):
    """A NIST SPHERE (.sph) file with PCM samples as (float32 (channels, samples), sample rate)."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"NIST_1A"):
        raise RuntimeError(f"For '{where}', {path} is not a NIST SPHERE file (no NIST_1A header).")
    header_size = int(data[8:16].strip() or 1024)
    fields = {}
    for line in data[16:header_size].decode("ascii", "replace").splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3:
            fields[parts[0]] = parts[2].strip()
        if line.strip() == "end_head":
            break
    coding = fields.get("sample_coding", "pcm")
    if not coding.startswith("pcm"):
        raise RuntimeError(f"For '{where}', {path} is {coding}-coded; only PCM SPHERE files are read.")
    width, channels = int(fields.get("sample_n_bytes", 2)), int(fields.get("channel_count", 1))
    rate = int(fields.get("sample_rate", 16000))
    little = fields.get("sample_byte_format", "01") != "10"
    return _pcm_to_float(data[header_size:], width, channels, path, where, little), rate


class _AudioSource(RecordSource):
    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)

    def _wave(self, path, rate_type=np.uint32):
        waveform, rate = read_wav(need_file(path, self._where, "audio file"), self._where)
        return waveform, np.array(rate, rate_type)


class CMUArcticDataset(_AudioSource):
    """`CMUArcticDataset(dataset_dir, name=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)`: cmu_us_<name>_arctic/ (name default 'aew') with
    etc/txt.done.data ('( arctic_a0001 "text" )' lines) and wav/<id>.wav; columns waveform, sample_rate (uint32),
    transcript, utterance_id."""

    _where = "CMUArcticDataset"
    NAMES = ("aew", "ahw", "aup", "awb", "axb", "bdl", "clb", "eey", "fem", "gka", "jmk", "ksp", "ljm", "lnh",
             "rms", "rxr", "slp", "slt")

    def __init__(self, dataset_dir, name=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        self.name = check_choice("aew" if name is None else name, "name", self.NAMES, self._where)
        super().__init__(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)

    def _column_names(self):
        return ["waveform", "sample_rate", "transcript", "utterance_id"]

    def _scan(self):
        root = os.path.join(self.dataset_dir, f"cmu_us_{self.name}_arctic")
        records = []
        with open(need_file(os.path.join(root, "etc", "txt.done.data"), self._where), encoding="utf-8") as f:
            for line in f:
                match = re.match(r'\s*\(\s*(\S+)\s+"(.*)"\s*\)\s*$', line)
                if match:
                    # the utterance id drops the "arctic_" prefix of the file name, as MindSpore's reader does
                    records.append((os.path.join(root, "wav", f"{match.group(1)}.wav"), match.group(2),
                                    match.group(1).split("_", 1)[-1]))
        return records

    def _row(self, record):
        return self._wave(record[0]) + (np.array(record[1]), np.array(record[2]))


class GTZANDataset(_AudioSource):
    """`GTZANDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)`: genres/<genre>/<genre>.<n>.wav (or the genre folders
    directly in dataset_dir); columns waveform, sample_rate (uint32), label (the genre). Only usage 'all' (the
    default): the fixed train/valid/test file lists of the official split are not bundled."""

    _where = "GTZANDataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        self.usage = check_choice("all" if usage is None else usage, "usage", ("train", "valid", "test", "all"),
                                  self._where)
        if self.usage != "all":
            raise NotImplementedError(f"For '{self._where}', usage '{self.usage}' needs the official split's file "
                                      f"lists, which openspore does not bundle; use usage 'all' and split().")
        super().__init__(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)

    def _column_names(self):
        return ["waveform", "sample_rate", "label"]

    def _scan(self):
        root = os.path.join(self.dataset_dir, "genres")
        root = root if os.path.isdir(root) else self.dataset_dir
        return [(path, os.path.basename(os.path.dirname(path)))
                for path in sorted(glob.glob(os.path.join(root, "*", "*.wav")))]

    def _row(self, record):
        return self._wave(record[0]) + (np.array(record[1]),)


class LJSpeechDataset(_AudioSource):
    """`LJSpeechDataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
    num_shards=None, shard_id=None, cache=None)`: metadata.csv ('id|transcription|normalized' lines) and
    wavs/<id>.wav; columns waveform, sample_rate (int32), transcription, normalized_transcription."""

    _where = "LJSpeechDataset"

    def _column_names(self):
        return ["waveform", "sample_rate", "transcription", "normalized_transcription"]

    def _scan(self):
        records = []
        with open(need_file(os.path.join(self.dataset_dir, "metadata.csv"), self._where), encoding="utf-8",
                  newline="") as f:
            for parts in csv.reader(f, delimiter="|", quoting=csv.QUOTE_NONE):
                if len(parts) >= 3:
                    records.append((os.path.join(self.dataset_dir, "wavs", f"{parts[0]}.wav"), parts[1], parts[2]))
        return records

    def _row(self, record):
        return self._wave(record[0], np.int32) + (np.array(record[1]), np.array(record[2]))


class LibriTTSDataset(_AudioSource):
    """`LibriTTSDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)`: <usage>/<speaker>/<chapter>/ with
    <speaker>_<chapter>.trans.tsv (utterance, original and normalized text per line) and <utterance>.wav; columns
    waveform, sample_rate, original_text, normalized_text, speaker_id, chapter_id (uint32), utterance_id."""

    _where = "LibriTTSDataset"
    USAGES = ("dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100", "train-clean-360",
              "train-other-500")

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        self.usage = check_choice("all" if usage is None else usage, "usage", self.USAGES + ("all",), self._where)
        super().__init__(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)

    def _column_names(self):
        return ["waveform", "sample_rate", "original_text", "normalized_text", "speaker_id", "chapter_id",
                "utterance_id"]

    def _scan(self):
        usages = self.USAGES if self.usage == "all" else (self.usage,)
        records = []
        for usage in usages:
            # each chapter folder has <speaker>_<chapter>.trans.tsv: utterance \t original \t normalized
            for table in sorted(glob.glob(os.path.join(self.dataset_dir, usage, "*", "*", "*.trans.tsv"))):
                folder = os.path.dirname(table)
                with open(table, encoding="utf-8") as f:
                    for line in f:
                        parts = line.rstrip("\n").split("\t")
                        if len(parts) >= 3:
                            records.append((os.path.join(folder, parts[0] + ".wav"), parts[0], parts[1], parts[2]))
        return records

    def _row(self, record):
        path, utterance, original, normalized = record
        speaker, chapter = utterance.split("_")[:2]
        return self._wave(path) + (np.array(original), np.array(normalized), np.array(int(speaker), np.uint32),
                                   np.array(int(chapter), np.uint32), np.array(utterance))


class SpeechCommandsDataset(_AudioSource):
    """`SpeechCommandsDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)`: <label>/<speaker>_nohash_<n>.wav; usage 'valid' and
    'test' are the files of validation_list.txt / testing_list.txt, 'train' the rest, 'all' everything
    (_background_noise_ excluded); columns waveform, sample_rate (int32), label, speaker_id, utterance_number
    (int32)."""

    _where = "SpeechCommandsDataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        self.usage = check_choice("all" if usage is None else usage, "usage", ("train", "valid", "test", "all"),
                                  self._where)
        super().__init__(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)

    def _column_names(self):
        return ["waveform", "sample_rate", "label", "speaker_id", "utterance_number"]

    def _listed(self, name):
        path = os.path.join(self.dataset_dir, name)
        if not os.path.isfile(path):
            return set()
        with open(path, encoding="utf-8") as f:
            return {line.strip() for line in f if line.strip()}

    def _scan(self):
        files = sorted(os.path.relpath(p, self.dataset_dir).replace(os.sep, "/")
                       for p in glob.glob(os.path.join(self.dataset_dir, "*", "*.wav"))
                       if not p.split(os.sep)[-2].startswith("_"))
        valid, test = self._listed("validation_list.txt"), self._listed("testing_list.txt")
        keep = {"all": lambda f: True, "valid": lambda f: f in valid, "test": lambda f: f in test,
                "train": lambda f: f not in valid and f not in test}[self.usage]
        return [f for f in files if keep(f)]

    def _row(self, rel):
        label, name = rel.split("/")
        speaker, _, number = name[:-4].split("_", 2)
        number = number.rsplit("_", 1)[-1]
        return self._wave(os.path.join(self.dataset_dir, rel), np.int32) + (
            np.array(label), np.array(speaker), np.array(int(number), np.int32))


class TedliumDataset(_AudioSource):
    """`TedliumDataset(dataset_dir, release, usage=None, extensions=None, num_samples=None,
    num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None)`: release
    'release1' / 'release2' (<TEDLIUM_releaseN>/<train|dev|test>/sph/<talk>.sph and stm/<talk>.stm) or 'release3'
    (TEDLIUM_release-3/data/...); one row per STM segment (ignore_time_segment_in_scoring lines skipped): waveform
    of that segment, sample_rate (int32), transcript, talk_id, speaker_id, identifier."""

    _where = "TedliumDataset"
    _folders = {"release1": "TEDLIUM_release1", "release2": "TEDLIUM_release2", "release3": "TEDLIUM_release-3"}

    def __init__(self, dataset_dir, release, usage=None, extensions=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        self.release = check_choice(release, "release", tuple(self._folders), self._where)
        usages = ("all",) if release == "release3" else ("train", "test", "dev", "all")
        self.usage = check_choice("all" if usage is None else usage, "usage", usages, self._where)
        self.extensions = extensions or ".sph"
        super().__init__(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)

    def _column_names(self):
        return ["waveform", "sample_rate", "transcript", "talk_id", "speaker_id", "identifier"]

    def _scan(self):
        root = os.path.join(self.dataset_dir, self._folders[self.release])
        parts = ["data"] if self.release == "release3" else (
            ["train", "test", "dev"] if self.usage == "all" else [self.usage])
        records = []
        for part in parts:
            for stm in sorted(glob.glob(os.path.join(root, part, "stm", "*.stm"))):
                talk = os.path.basename(stm)[:-4]
                with open(stm, encoding="utf-8") as f:
                    for line in f:
                        fields = line.split(None, 6)
                        if len(fields) < 6 or fields[2] == "inter_segment_gap":
                            continue
                        transcript = fields[6].strip() if len(fields) > 6 else ""
                        if transcript == "ignore_time_segment_in_scoring":
                            continue
                        records.append((os.path.join(root, part, "sph", talk + self.extensions), float(fields[3]),
                                        float(fields[4]), transcript, fields[0], fields[2], fields[5]))
        return records

    def _row(self, record):
        path, start, end, transcript, talk, speaker, identifier = record
        waveform, rate = read_sphere(need_file(path, self._where, "audio file"), self._where)
        segment = np.ascontiguousarray(waveform[:, int(start * rate):int(end * rate)])
        return (segment, np.array(rate, np.int32), np.array(transcript), np.array(talk), np.array(speaker),
                np.array(identifier))


class YesNoDataset(_AudioSource):
    """`YesNoDataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
    num_shards=None, shard_id=None, cache=None)`: files named by their eight 0/1 labels (0_0_1_0_1_0_1_1.wav);
    columns waveform, sample_rate (int32), label (int32 (8,))."""

    _where = "YesNoDataset"

    def _column_names(self):
        return ["waveform", "sample_rate", "label"]

    def _scan(self):
        return sorted(n for n in os.listdir(self.dataset_dir)
                      if n.endswith(".wav") and re.fullmatch(r"[01](_[01])*\.wav", n))

    def _row(self, name):
        labels = [int(v) for v in name[:-4].split("_")]
        return self._wave(os.path.join(self.dataset_dir, name), np.int32) + (np.array(labels, np.int32),)
