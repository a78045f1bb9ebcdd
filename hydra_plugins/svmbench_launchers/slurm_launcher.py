"""``hydra/launcher=svmbench_slurm``: hydra-submitit-launcher's SLURM launcher (same
settings, one array job per sweep) that returns when every job has ended, however it ended.

hydra-submitit-launcher 1.2 waits on each job through ``sacct``: without an accounting database
sacct fails and a cancelled or timed-out job, which leaves no result, is waited for forever; with
sacct the first such job raises and the sweep stops waiting for the others. Here a job has ended
when its result file exists or when ``squeue`` no longer lists it as pending or running (it shows
finished jobs for the controller's MinJobAge, 300 s by default, and then forgets them). A job that
ended without a result is a failed cell: the sweep's callbacks get its end as if it had raised, so
``svmbench.callbacks.FailedCells`` names it, with the command that re-runs it, and the command
exits non-zero. Re-submitting the sweep trains only the cells without records.
"""

import logging
import signal
import subprocess
import time
from pathlib import Path

from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, JobStatus, filter_overrides
from hydra_plugins.hydra_submitit_launcher.config import BaseQueueConf
from hydra_plugins.hydra_submitit_launcher.submitit_launcher import SlurmLauncher as SubmititSlurm
from omegaconf import OmegaConf, open_dict

# squeue states of a job that may still write its result (squeue(1), JOB STATE CODES)
ACTIVE = {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "REQUEUED", "REQUEUE_FED",
          "REQUEUE_HOLD", "RESIZING", "SUSPENDED", "STAGE_OUT", "SIGNALING", "PREEMPTED"}
RESULT_SECONDS = 1.0        # how often the result files are looked for
SCHEDULER_SECONDS = 10.0    # how often squeue is asked
GONE = "gone"               # the state of a job squeue no longer lists
RESULT_GRACE_SECONDS = 30.0  # a COMPLETED job's result may reach a shared filesystem late
log = logging.getLogger(__name__)


class JobEndedWithoutResult(RuntimeError):
    """A SLURM job of the sweep ended (cancelled, time limit, node failure...) before its cell
    returned."""


def squeue_states(job_ids):
    """{job id: state} of the listed SLURM jobs squeue still knows (array tasks as
    ``<array id>_<task>``); None when squeue fails (the controller is busy: ask again later)."""
    arrays = sorted({job_id.split("_")[0] for job_id in job_ids})
    try:
        out = subprocess.run(["squeue", "--noheader", "--array", "--states=all",
                              "--format=%i %T", f"--jobs={','.join(arrays)}"],
                             capture_output=True, text=True, check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError) as error:
        log.warning("squeue failed (%s); asking again in %.0f s", error, SCHEDULER_SECONDS)
        return None
    return dict(line.split()[:2] for line in out.splitlines() if line.strip())


def wait_for_end(jobs):
    """Wait until every submitit job has a result or has ended without one; return
    {job id: final squeue state} of those without (GONE when squeue had forgotten them)."""
    waiting = {job.job_id: job for job in jobs}
    ended = {}  # job id -> (state, when squeue first said it ended)
    asked = float("-inf")
    while waiting:
        for job_id in [j for j, job in waiting.items() if job.paths.result_pickle.exists()]:
            waiting.pop(job_id)
            ended.pop(job_id, None)
        if waiting and time.monotonic() - asked > SCHEDULER_SECONDS:
            asked = time.monotonic()
            states = squeue_states(waiting)
            for job_id in (waiting if states is not None else ()):
                state = states.get(job_id, GONE)
                if state.upper() not in ACTIVE:
                    ended.setdefault(job_id, (state, asked))
        late = [job_id for job_id, (state, when) in ended.items() if job_id in waiting and (
            state != "COMPLETED" or time.monotonic() - when > RESULT_GRACE_SECONDS)]
        for job_id in late:
            waiting.pop(job_id)
        if waiting:
            time.sleep(RESULT_SECONDS)
    return {job_id: state for job_id, (state, _) in ended.items()}


class SlurmLauncher(SubmititSlurm):
    def __call__(self, *arguments):
        """Run the cell in its SLURM job. Without requeueing (``max_num_timeout=0``, the default)
        submitit's time-limit signal (USR2, ``signal_delay_s`` before the limit) would only raise
        into the fold in training and store it as failed; it is ignored, so the job trains until
        SLURM stops it and its cell is reported as timed out."""
        if not self.params.get("max_num_timeout"):
            signal.signal(signal.SIGUSR2, signal.SIG_IGN)
        return super().__call__(*arguments)

    def launch(self, job_overrides, initial_job_idx):
        """As hydra-submitit-launcher 1.2's ``launch`` (submit the sweep as one array job), then
        wait with :func:`wait_for_end` and report each job that ended without a result."""
        import submitit

        specific = {"max_num_timeout"}
        executor = submitit.AutoExecutor(
            cluster=self._EXECUTOR, folder=self.params["submitit_folder"],
            **{f"{self._EXECUTOR}_{key}": value for key, value in self.params.items()
               if key in specific})
        queue_keys = set(OmegaConf.structured(BaseQueueConf).keys())
        executor.update_parameters(**{
            key if key in queue_keys else f"{self._EXECUTOR}_{key}": value
            for key, value in self.params.items() if key not in specific | {"submitit_folder"}})
        Path(str(self.config.hydra.sweep.dir)).mkdir(parents=True, exist_ok=True)
        numbers = range(initial_job_idx, initial_job_idx + len(job_overrides))
        for number, overrides in zip(numbers, job_overrides):
            log.info("\t#%d : %s", number, " ".join(filter_overrides(overrides)))
        jobs = executor.map_array(self, [list(o) for o in job_overrides],
                                  ["hydra.sweep.dir"] * len(job_overrides), list(numbers),
                                  [f"job_id_for_{n}" for n in numbers],
                                  [Singleton.get_state()] * len(job_overrides))
        log.info("submitted SLURM array job %s (%d tasks)", jobs[0].job_id.split("_")[0],
                 len(jobs))
        without_result = wait_for_end(jobs)
        return [self._job_return(job, list(overrides), number, without_result.get(job.job_id))
                for job, overrides, number in zip(jobs, job_overrides, numbers)]

    def _job_return(self, job, overrides, number, state):
        """The job's own JobReturn; for a job that ended without one (``state``), a failed
        JobReturn, passed to the sweep's ``on_job_end`` callbacks here, in the submitting
        process, since the job never reached them."""
        if state is None:
            try:
                return job.results()[0]
            except Exception as error:  # noqa: BLE001 — submitit's own failure (no JobReturn)
                problem = error
        else:
            ended = f"ended {state}" if state != GONE else (
                "is no longer listed by squeue (cancelled while pending, or ended longer ago "
                "than the controller's MinJobAge)")
            problem = JobEndedWithoutResult(
                f"SLURM job {job.job_id} {ended} before its cell returned (logs: "
                f"{job.paths.stdout.parent}); re-submitting the sweep trains what is missing")
        config = self.hydra_context.config_loader.load_sweep_config(self.config, overrides)
        with open_dict(config.hydra.job):
            config.hydra.job.num = number
            config.hydra.job.id = job.job_id
        job_return = JobReturn(overrides=overrides, cfg=config, hydra_cfg=config,
                               status=JobStatus.FAILED, _return_value=problem)
        self.hydra_context.callbacks.on_job_end(config=config, job_return=job_return)
        return job_return
