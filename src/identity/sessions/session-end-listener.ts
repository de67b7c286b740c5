/**
 * What another area does when a session ends (its records that belong to the session, such as
 * push subscriptions, go with it). Declared on identity's side so that identity depends on no
 * such area: the identity area's factory takes one (the app's, which announces the end to
 * the areas that react) and registers it on the SessionManager. A listener handles its own
 * failures (it must not reject): the session has ended whatever it does.
 */
export interface SessionEndListener {
  sessionEnded(sessionId: string): Promise<void>;
}
