//! The vocabulary every module shares, below all of them: the dialects'
//! ids (their names, titles and endpoint paths, and the order reports list
//! them in). What a dialect's events carry and how it is checked is in its
//! folder under `src/dialect/`, picked by this id there
//! ([`crate::dialect`]); here is only what the capture readers, the rule
//! catalogue and the profiles need to name a dialect.
//!
//! Adding a dialect means a variant here (its name, title and endpoint)
//! and its folder's registration in `src/dialect/mod.rs`.

/// One of the stream formats sselint knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// OpenAI Chat Completions (`POST /v1/chat/completions`).
    Chat,
    /// OpenAI Responses (`POST /v1/responses`).
    Responses,
    /// Anthropic Messages (`POST /v1/messages`).
    Messages,
}

/// Every dialect, in the order reports list them.
pub const ALL: &[Dialect] = &[Dialect::Chat, Dialect::Responses, Dialect::Messages];

/// The dialect a stream is read as until an event, the request path or
/// `--dialect` names one: Chat, as sselint read every stream before the
/// others came.
pub const DEFAULT: Dialect = Dialect::Chat;

impl Dialect {
    /// The name used by `--dialect`, reports, and the rule folder
    /// (`chat`, `responses`, `messages`).
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Chat => "chat",
            Dialect::Responses => "responses",
            Dialect::Messages => "messages",
        }
    }

    /// The API's own name, for messages ("OpenAI Responses").
    pub fn title(self) -> &'static str {
        match self {
            Dialect::Chat => "OpenAI Chat Completions",
            Dialect::Responses => "OpenAI Responses",
            Dialect::Messages => "Anthropic Messages",
        }
    }

    /// The dialect called `name` (as [`Dialect::name`] gives it).
    pub fn parse(name: &str) -> Option<Dialect> {
        ALL.iter().copied().find(|d| d.name() == name)
    }

    /// The endpoint path under the API base (`/v1`): `/chat/completions`,
    /// `/responses`, `/messages`.
    pub fn endpoint(self) -> &'static str {
        match self {
            Dialect::Chat => "/chat/completions",
            Dialect::Responses => "/responses",
            Dialect::Messages => "/messages",
        }
    }
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The dialect a request URL names by its path (`…/chat/completions`,
/// `…/responses`, `…/messages`, query ignored); `None` for any other path.
pub fn sniff_url(url: &str) -> Option<Dialect> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let path = path.trim_end_matches('/');
    // The endpoints end differently, so at most one matches.
    ALL.iter().copied().find(|d| path.ends_with(d.endpoint()))
}
