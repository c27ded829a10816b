/**
 * The API reads the assistant's page makes as soon as it shows (its conversations and the usage
 * figures, one read shared with the header's meter), exactly as it asks for them: the
 * descriptor's `firstReads`, which a host page hints so they download with the remote's code.
 * A test renders the page and compares.
 */
export const firstReads = ['/api/assistant/conversations?limit=20', '/api/assistant/usage']
