"""What a build says it did (:class:`BuildResult`) and where it is while it works
(:class:`Progress`): values of the library's door (build.py), apart from the
stages (stages.py), which a build that changes nothing never imports."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .model import InputWarning, Site


@dataclass
class BuildResult:
    out: Path
    projects: int = 0
    sessions: int = 0
    stats: dict[str, int] = field(default_factory=dict)  # the site's numbers
    used_examples: bool = False
    written: int = 0
    unchanged: int = 0
    warnings: list[InputWarning] = field(default_factory=list)
    archived_only: int = 0  # sessions whose original is deleted, read from bough's archive
    notes: list[str] = field(default_factory=list)  # said once in the summary (the agents' cleanup)
    rebuilt: int = 0  # sessions read and rendered by this build
    reused: int = 0  # sessions whose source had not changed: their pages were kept as they were
    gone: int = 0  # sessions whose source is gone, kept from an earlier build (until --prune)
    pruned: int = 0  # files --prune deleted
    kept: int = 0  # files kept without being rendered again
    built: Site | None = field(default=None, repr=False)  # None after a quick rebuild: read when asked

    @property
    def site(self) -> Site:
        """The site the build made, its sessions without timelines, nor their
        summaries' details (summaries.DETAIL_FIELDS: load_site has everything)."""
        if self.built is None:
            from .site import site_from_manifest  # the model's numbers: not imported by a quick rebuild

            self.built = site_from_manifest(self.out, self.warnings)
        return self.built


@dataclass
class Progress:
    """Where a build is, for a progress bar: sessions done of total, the last project."""

    done: int
    total: int
    project: str
    rebuilt: int
    reused: int
    elapsed: float
