"""REST routes over the summary base dir, on MindInsight's paths (`/v1/mindinsight/datavisual/...`) and shapes
(fact sheet §6) where MindInsight has them. Errors answer 400 with MindInsight's `error_code`/`error_msg`."""
import time

from starlette.responses import JSONResponse, Response

from ..summary_reader import InvalidTrainId
from .graph_view import graph_json

TRAIN_JOB_MISSING = "50545005"
TAG_MISSING = "5054500E"
PARAM_ERROR = "50540002"


def error(code, message, status=400):
    return JSONResponse({"error_code": code, "error_msg": message}, status_code=status)


def _run(index, request, name="train_id"):
    """The Run named by the query parameter, or an error response."""
    train_id = request.query_params.get(name)
    if not train_id:
        return None, error(PARAM_ERROR, f"Param missing. '{name}' is required.")
    try:
        return index.run(train_id), None
    except InvalidTrainId as exc:
        return None, error(PARAM_ERROR, f"Invalid parameter value. {exc}")
    except KeyError:
        return None, error(TRAIN_JOB_MISSING, f"Train job is not exist. train_id: {train_id}")


def _time_text(seconds):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds)) if seconds else ""


def _job(run):
    summaries, lineages = run.files()
    plugins = run.plugins()
    return {"train_id": run.train_id, "relative_path": run.train_id, "create_time": _time_text(_ctime(run)),
            "update_time": _time_text(run.update_time), "summary_files": len(summaries),
            "lineage_files": len(lineages), "graph_files": 0, "cache_status": "CACHED",
            # MindInsight's own flag; the messages are ours, for the run list to show (file names, never paths)
            "is_integrity": not run.damaged,
            "damaged_records": [f"{name}, byte {at}: {reason}; skipped" for name, at, reason in run.damaged],
            "plugins": {k: [f"{t}/{k}" for t in v] if k != "graph" else v for k, v in plugins.items()},
            "version": run.version}


def _ctime(run):
    import os
    try:
        return os.path.getctime(run.path)
    except OSError:
        return 0


def routes(index):
    async def train_jobs(request):
        runs = index.runs()
        offset = _int(request.query_params.get("offset"), 0)
        limit = _int(request.query_params.get("limit"), 1000)
        import os
        return JSONResponse({"name": os.path.basename(index.base), "total": len(runs), "load_status": "loaded",
                             "train_jobs": [_job(r) for r in runs[offset:offset + limit]]})

    async def plugins(request):
        run, err = _run(index, request)
        return err or JSONResponse({"plugins": _job(run)["plugins"], "version": run.version})

    async def scalar_metadata(request):
        run, err = _run(index, request)
        if err:
            return err
        tag = _bare(request.query_params.get("tag", ""), "scalar")
        series = run.scalar_series(tag)
        if series is None:
            return error(TAG_MISSING, f"Scalar value is not exist. tag: {tag}")
        return JSONResponse({"metadatas": series})

    async def scalars(request):
        out = []
        for train_id in request.query_params.getlist("train_id"):
            try:
                run = index.run(train_id)
            except InvalidTrainId as exc:
                return error(PARAM_ERROR, f"Invalid parameter value. {exc}")
            except KeyError:
                continue
            for tag in request.query_params.getlist("tag"):
                series = run.scalar_series(_bare(tag, "scalar"))
                if series is not None:
                    out.append({"tag": tag, "train_id": run.train_id, "values": series})
        return JSONResponse({"scalars": out})

    async def histograms(request):
        run, err = _run(index, request)
        if err:
            return err
        tag = _bare(request.query_params.get("tag", ""), "histogram")
        if tag not in run.histograms:
            return error(TAG_MISSING, f"Histogram value is not exist. tag: {tag}")
        return JSONResponse({"train_id": run.train_id, "tag": tag, "histograms": run.histograms[tag]})

    async def image_metadata(request):
        run, err = _run(index, request)
        if err:
            return err
        tag = _bare(request.query_params.get("tag", ""), "image")
        if tag not in run.images:
            return error(TAG_MISSING, f"Image value is not exist. tag: {tag}")
        return JSONResponse({"metadatas": [{k: v for k, v in i.items() if k != "png"} for i in run.images[tag]]})

    async def single_image(request):
        run, err = _run(index, request)
        if err:
            return err
        tag = _bare(request.query_params.get("tag", ""), "image")
        step = _int(request.query_params.get("step"), None)
        for item in run.images.get(tag, []):
            if item["step"] == step:
                return Response(item["png"], media_type="image/png")
        return error(TAG_MISSING, f"Image value is not exist. tag: {tag}, step: {step}")

    async def graph(request):
        run, err = _run(index, request)
        if err:
            return err
        if run.graph is None:
            return error(TAG_MISSING, f"Graph is not exist. train_id: {run.train_id}")
        return JSONResponse(graph_json(run.graph))

    async def lineages(request):
        objects = []
        for run in index.runs():
            if not run.lineage and not run.scalars:
                continue
            lineage = {k: v for k, v in run.lineage.items() if k not in ("dataset_graph", "user_defined")}
            objects.append({"summary_dir": run.train_id, "model_lineage": lineage,
                            "user_defined": run.lineage.get("user_defined", {}),
                            "dataset_graph": run.lineage.get("dataset_graph", {}),
                            "final_scalars": {tag: series[-1][1] for tag, series in run.scalars.items() if series}})
        return JSONResponse({"object": objects, "count": len(objects)})

    return [("/datavisual/train-jobs", train_jobs, ["GET"]),
            ("/datavisual/plugins", plugins, ["GET"]),
            ("/datavisual/scalar/metadata", scalar_metadata, ["GET"]),
            ("/datavisual/scalars", scalars, ["GET"]),
            ("/datavisual/histograms", histograms, ["GET"]),
            ("/datavisual/image/metadata", image_metadata, ["GET"]),
            ("/datavisual/image/single-image", single_image, ["GET"]),
            ("/datavisual/graphs/nodes/all", graph, ["GET"]),
            ("/lineagemgr/lineages", lineages, ["GET", "POST"])]


def _bare(tag, plugin):
    """MindInsight names tags '<tag>/<plugin>'; accept both that and the bare file tag."""
    suffix = f"/{plugin}"
    return tag[:-len(suffix)] if tag.endswith(suffix) else tag


def _int(text, default):
    try:
        return int(text)
    except (TypeError, ValueError):
        return default
