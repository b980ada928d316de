/** Tool calls of one model response that are run; more are answered with an error, unrun. */
export const MAX_CALLS_PER_RESPONSE = 32;
