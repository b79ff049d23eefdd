"""A long-lived LibreOffice for the export worker.

Starts soffice headless on a private profile and pipe, connects to it over UNO, and converts
documents on request: one JSON line in on stdin ({"input", "output", "filter"}), one JSON line
out on stdout ({"ok": true} or {"error": "..."}). Exits when soffice dies or stdin closes (after
asking soffice to quit), so the worker that runs it sees the process end and starts another.
"""

import json
import os
import subprocess
import sys
import time

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException


def prop(name, value):
    result = PropertyValue()
    result.Name = name
    result.Value = value
    return result


def reply(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def connect(office, pipe_name):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + 120
    while True:
        try:
            context = resolver.resolve(f"uno:pipe,name={pipe_name};urp;StarOffice.ComponentContext")
            return context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
        except NoConnectException:
            if office.poll() is not None:
                sys.exit(f"soffice exited with {office.returncode} while starting")
            if time.monotonic() > deadline:
                sys.exit("soffice did not accept a connection within 120 s")
            time.sleep(0.05)


def convert(desktop, request):
    document = desktop.loadComponentFromURL(
        uno.systemPathToFileUrl(request["input"]),
        "_blank",
        0,
        (prop("Hidden", True), prop("ReadOnly", True), prop("UpdateDocMode", 0)),
    )
    if document is None:
        raise RuntimeError("LibreOffice could not open the document")
    try:
        document.storeToURL(uno.systemPathToFileUrl(request["output"]), (prop("FilterName", request["filter"]),))
    finally:
        document.close(True)


def stop(office, desktop):
    """Asks soffice to quit, as a user would: stopped by a signal instead, it leaves its pipes
    (/tmp/OSL_PIPE_*) behind. The signal is kept for a soffice that does not quit in time."""
    if office.poll() is not None:
        return
    if desktop is not None:
        try:
            desktop.terminate()
        except Exception:  # noqa: BLE001 - the connection may drop as soffice quits
            pass
        try:
            office.wait(5)
            return
        except subprocess.TimeoutExpired:
            pass
    office.terminate()
    try:
        office.wait(3)
    except subprocess.TimeoutExpired:
        office.kill()


def main():
    soffice, profile_dir, pipe_name = sys.argv[1:4]
    office = subprocess.Popen(
        [
            soffice,
            "--headless",
            "--invisible",
            "--nologo",
            "--nodefault",
            "--norestore",
            "--nolockcheck",
            f"-env:UserInstallation={uno.systemPathToFileUrl(profile_dir)}",
            f"--accept=pipe,name={pipe_name};urp;StarOffice.ComponentContext",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    desktop = None
    try:
        desktop = connect(office, pipe_name)
        reply({"ready": True, "pid": office.pid})
        for line in iter(sys.stdin.readline, ""):
            request = json.loads(line)
            try:
                convert(desktop, request)
                reply({"ok": True})
            except Exception as error:  # noqa: BLE001 - every failure is answered, not raised
                if office.poll() is not None:
                    reply({"error": f"LibreOffice stopped: {error}"})
                    sys.exit(f"soffice exited with {office.returncode}")
                reply({"error": str(error)})
    finally:
        stop(office, desktop)


if __name__ == "__main__":
    os.environ.setdefault("SAL_USE_VCLPLUGIN", "svp")
    main()
