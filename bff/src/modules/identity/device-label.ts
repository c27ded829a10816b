/** "18.1" from "iPhone OS 18_1". */
function appleVersion(match: RegExpMatchArray): string | null {
  return match[1] ? `${match[1]}.${match[2]}` : null
}

/** Browser name and the pattern of its version (the first group), in the order they are tried. */
const browsers: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/\bOPR\/(\d+)|\bOpera\b/, 'Opera'],
  [/\b(?:Firefox|FxiOS)\/(\d+)/, 'Firefox'],
  [/\bSamsungBrowser\/(\d+)/, 'Samsung Internet'],
  // Headless Chromium (automation, the end-to-end suite) says "HeadlessChrome".
  [/\b(?:HeadlessChrome|Chrome|Chromium|CriOS)\/(\d+)/, 'Chrome'],
  [/\bVersion\/(\d+(?:\.\d+)?).*\bSafari\//, 'Safari'],
  [/\bcurl\/(\d+(?:\.\d+)*)/, 'curl'],
  [/\bnode\b|\bundici\b/i, 'Node.js'],
]

/**
 * Device or system as a label says it, the system's name, and how its version reads from the
 * pattern's groups (when the agent tells it).
 */
const systems: [RegExp, string, string, ((match: RegExpMatchArray) => string | null)?][] = [
  [/\b(?:iPhone|iPod)\b(?:.*?\bOS (\d+)[_.](\d+))?/, 'iPhone', 'iOS', appleVersion],
  [/\biPad\b(?:.*?\bOS (\d+)[_.](\d+))?/, 'iPad', 'iPadOS', appleVersion],
  [/\bAndroid(?: (\d+(?:\.\d+)?))?/, 'Android', 'Android', (m) => m[1] ?? null],
  [/\bCrOS\b/, 'ChromeOS', 'ChromeOS'],
  // Windows 10 and 11 both say "Windows NT 10.0": the version tells nobody anything.
  [/\bWindows\b/, 'Windows', 'Windows'],
  // macOS froze its version at 10_15_7 in every browser: left out for the same reason.
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS', 'macOS'],
  [/\bLinux\b/, 'Linux', 'Linux'],
]

export interface UserAgentParts {
  /** Name and main version: "Chrome 141", "Safari 18.1"; null when no browser we know. */
  browser: string | null
  /** Name and version where it means something: "Android 14", "iOS 18.1", "Linux"; or null. */
  os: string | null
  /** The names alone ("iPhone" for its system), for a short label. */
  browserName: string | null
  osName: string | null
}

/**
 * Reads what people recognise in a User-Agent: browser and version, system and version. A small
 * table of patterns, not a full parser: it only helps people tell their sessions apart.
 */
export function parseUserAgent(userAgent: string | null | undefined): UserAgentParts {
  const none = { browser: null, os: null, browserName: null, osName: null }
  if (userAgent === null || userAgent === undefined || userAgent.trim() === '') return none
  let browser: string | null = null
  let browserName: string | null = null
  for (const [pattern, name] of browsers) {
    const match = userAgent.match(pattern)
    if (match === null) continue
    browserName = name
    browser = match[1] === undefined ? name : `${name} ${match[1]}`
    break
  }
  let os: string | null = null
  let osName: string | null = null
  for (const [pattern, label, name, versionOf] of systems) {
    const match = userAgent.match(pattern)
    if (match === null) continue
    osName = label
    const version = versionOf?.(match) ?? null
    os = version === null ? name : `${name} ${version}`
    break
  }
  return { browser, os, browserName, osName }
}

/**
 * A label people recognise their device by ("Firefox on Linux"), from the User-Agent. It only
 * helps people tell their sessions apart; nothing relies on it.
 */
export function describeDevice(userAgent: string | null | undefined): string {
  const { browserName, osName } = parseUserAgent(userAgent)
  if (browserName !== null && osName !== null) return `${browserName} on ${osName}`
  return browserName ?? osName ?? 'Unknown device'
}
