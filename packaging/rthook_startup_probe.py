"""Start-up probe (a PyInstaller runtime hook; packaging/probe/sitecustomize.py for a venv).

Does nothing unless ``VERSO_STARTUP_PROBE`` is set.  Then, when the editor's
window is first painted, prints ``VERSO_FIRST_PAINT <unix time>`` on stderr and,
with ``VERSO_STARTUP_PROBE=exit``, quits: packaging/startbench.py times
start-up to the first painted window with it.
"""
import os

if os.environ.get("VERSO_STARTUP_PROBE"):
    def _verso_install_probe():
        import sys
        import time

        import app.main as verso_main

        orig = verso_main.run_editor

        def run_editor(project_dir=None, **kw):
            from PySide6.QtCore import QEvent, QObject, QTimer
            from PySide6.QtWidgets import QApplication, QMainWindow, QWidget

            app = QApplication.instance() or QApplication(sys.argv[:1])

            def report():
                print(f"VERSO_FIRST_PAINT {time.time():.3f}", file=sys.stderr, flush=True)
                if os.environ.get("VERSO_STARTUP_PROBE") == "exit":
                    QTimer.singleShot(0, app.quit)

            class FirstPaint(QObject):
                done = False

                def eventFilter(self, obj, ev):
                    if (not self.done and ev.type() == QEvent.Type.Paint and isinstance(obj, QWidget)
                            and isinstance(obj.window(), QMainWindow)):
                        self.done = True
                        QTimer.singleShot(0, report)  # after this paint has been drawn
                    return False

            app._verso_probe = FirstPaint()
            app.installEventFilter(app._verso_probe)
            return orig(project_dir, **kw)

        verso_main.run_editor = run_editor

    _verso_install_probe()
