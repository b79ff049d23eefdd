import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/** A program or file a test needs from the machine, and how to get it on Debian. */
export interface SystemRequirement {
  what: string;
  /** The Debian package that provides it. */
  debianPackage: string;
  present(): boolean;
}

function onPath(command: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export const CHROMIUM_PATH = "/usr/bin/chromium";
export const CJK_FONT_PATH = "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf";

export const CHROMIUM: SystemRequirement = {
  what: `a browser at ${CHROMIUM_PATH}`,
  debianPackage: "chromium",
  present: () => existsSync(CHROMIUM_PATH),
};
export const POPPLER: SystemRequirement = {
  what: "poppler's pdfsig and pdftoppm",
  debianPackage: "poppler-utils",
  present: () => onPath("pdfsig") && onPath("pdftoppm"),
};
export const CJK_FONT: SystemRequirement = {
  what: `the CJK font ${CJK_FONT_PATH}`,
  debianPackage: "fonts-droid-fallback",
  present: () => existsSync(CJK_FONT_PATH),
};
export const LIBREOFFICE: SystemRequirement = {
  what: "LibreOffice's soffice",
  debianPackage: "libreoffice-writer-nogui",
  present: () => onPath("soffice"),
};
export const PYTHON_UNO: SystemRequirement = {
  what: "LibreOffice's Python bridge (import uno)",
  debianPackage: "python3-uno",
  present: () => {
    try {
      execFileSync("/usr/bin/python3", ["-c", "import uno"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  },
};

const checked = new Map<SystemRequirement, boolean>();

/**
 * Why a suite needing these cannot run on this machine, for `describe`'s `skip` (one line naming
 * each missing package and the command that installs it), or `false`. Under CI nothing may be
 * missing: the suite fails instead of skipping.
 */
export function missingSystemPackages(...requirements: SystemRequirement[]): false | string {
  const missing = requirements.filter((requirement) => {
    if (!checked.has(requirement)) checked.set(requirement, requirement.present());
    return !checked.get(requirement);
  });
  if (missing.length === 0) return false;
  const packages = missing.map((requirement) => requirement.debianPackage).join(" ");
  const reason = `needs ${missing.map((requirement) => requirement.what).join(" and ")}: apt-get install ${packages}`;
  if (process.env.CI === "true") throw new Error(`CI ${reason}`);
  return reason;
}
export const CURL: SystemRequirement = { what: "curl", debianPackage: "curl", present: () => onPath("curl") };
export const JQ: SystemRequirement = { what: "jq", debianPackage: "jq", present: () => onPath("jq") };
