/**
 * Query-time synonyms: a query word also matches the other words of its groups. Small on
 * purpose (verbs and a few nouns tools are named with); a large thesaurus drowns the words
 * the user actually typed. Words are unstemmed here; the analyzer stems them once at load.
 * A word may sit in several groups (find: get and search); it then expands to all of them.
 */
export const SYNONYM_GROUPS: ReadonlyArray<readonly string[]> = [
  ["create", "add", "new", "make", "insert", "generate"],
  ["delete", "remove", "destroy", "erase", "drop"],
  ["get", "fetch", "retrieve", "read", "find", "lookup", "obtain"],
  ["list", "enumerate"],
  ["update", "edit", "modify", "change", "set", "patch"],
  ["send", "post", "transmit"],
  ["search", "query", "find", "lookup"],
  ["run", "execute", "invoke"],
  ["stop", "cancel", "terminate", "kill", "abort"],
  ["check", "verify", "validate"],
  ["calculate", "compute"],
  ["image", "picture", "photo"],
  ["email", "mail"],
  ["message", "msg"],
  ["repository", "repo"],
  ["issue", "ticket"],
  ["directory", "folder"],
  // abbreviations tool names use for the words people type
  ["information", "info", "details"],
  ["statistics", "stats", "stat"],
  ["configuration", "config", "settings"],
  ["application", "app"],
  ["document", "doc", "docs"],
];
