/**
 * Words that carry no meaning for finding a tool: English function words plus the
 * politeness and request fluff of chat prompts ("please tell me", "I want to", "can you").
 * Kept lowercase and unstemmed; the analyzer checks words before stemming them.
 */
export const STOPWORDS: ReadonlySet<string> = new Set([
  // articles, pronouns, auxiliaries
  "a", "an", "the", "this", "that", "these", "those", "it", "its", "it's", "they", "them", "their",
  "i", "me", "my", "mine", "myself", "we", "us", "our", "you", "your", "yours", "he", "she", "him", "her", "his",
  "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "done", "doing",
  "have", "has", "had", "having", "will", "would", "shall", "should", "can", "could", "may", "might", "must",
  // prepositions and conjunctions
  "of", "for", "to", "in", "on", "at", "by", "with", "from", "into", "onto", "about", "as", "than",
  "and", "or", "but", "nor", "so", "if", "then", "else", "via", "per", "over", "under", "between",
  "up", "out", "off", "down", "through", "within", "without", "upon",
  // question words and quantifiers that do not narrow a search
  "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
  "some", "any", "each", "every", "such", "there", "here", "also", "just", "only", "very", "too",
  "not", "no", "yes", "ok", "okay",
  // request fluff
  "please", "pls", "tell", "let", "lets", "let's", "want", "wants", "wanna", "need", "needs", "like",
  "help", "hi", "hello", "hey", "thanks", "thank", "kindly", "know", "able", "give",
]);
