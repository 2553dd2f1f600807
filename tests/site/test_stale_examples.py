"""What sphinx-gallery generated for examples that no longer exist is removed before a build."""

from __future__ import annotations

from pathlib import Path

from autograd_notes.site.build.stale_examples import remove_stale_pages


def test_every_generated_file_of_a_gone_example_goes_even_without_its_page(tmp_path: Path) -> None:
    examples, generated = tmp_path / "gallery", tmp_path / "docs" / "examples"
    (examples / "01_x").mkdir(parents=True)
    (examples / "01_x" / "plot_kept.py").write_text("", encoding="utf-8")
    section = generated / "01_x"
    (section / "images").mkdir(parents=True)
    kept = ["plot_kept.rst", "plot_kept.py", "plot_kept.ipynb", "images/sphx_glr_plot_kept_001.png"]
    # a build killed while plot_gone ran: its script was copied, its page never written
    gone = ["plot_gone.py", "plot_gone.ipynb", "plot_gone_codeobj.pickle"]
    gone.append("images/sphx_glr_plot_gone_001.png")
    for name in [*kept, *gone]:
        (section / name).write_text("x", encoding="utf-8")
    (generated / "02_deleted_section").mkdir()
    (generated / "02_deleted_section" / "plot_y.rst").write_text("x", encoding="utf-8")
    assert remove_stale_pages(examples, generated) == ["01_x/plot_gone.py", "02_deleted_section/plot_y.py"]
    left = sorted(p.relative_to(section).as_posix() for p in section.rglob("*") if p.is_file())
    assert left == sorted(kept)
    assert not (generated / "02_deleted_section").exists()
