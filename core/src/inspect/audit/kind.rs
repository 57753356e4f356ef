//! What a key is: its kind as `keybench.audit_classify` (sql/audit_values.sql) labels it, and the
//! facts of each kind the decision and the cost read (random or not, its time unit, where its time
//! is).

/// How a key gets its values: keybench_audit's `key_kind`, as sql/audit_values.sql's
/// `keybench.audit_classify` labels it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    Identity,
    Sequence,
    UuidV4,
    UuidV7,
    UuidV1,
    UuidV6,
    UuidV8,
    /// A uuid whose variant is not RFC 9562's (and whose first bits are no time), or of a version
    /// RFC 9562 does not define or whose order it does not give (v2, v3, v5).
    UuidOther,
    UuidV4Text,
    UuidV7Text,
    /// A uuid of another version stored as text.
    UuidOtherText,
    UlidUuid,
    UlidText,
    Snowflake,
    /// A bigint whose top bits look like a time, from an epoch other than Twitter's.
    SnowflakeLike,
    /// Text of 27 base62 characters: a KSUID, seconds since 2014-05-13 then 128 random bits.
    Ksuid,
    /// A MongoDB ObjectId as 24 hex digits: seconds, then random and a counter.
    ObjectIdText,
    /// A cuid (v1): 'c', the time in milliseconds in base36, a counter, a fingerprint, random.
    Cuid,
    /// An XID: 20 characters of base32hex, seconds first, then machine, process and counter.
    Xid,
    /// A Firebase push id: 20 characters, milliseconds in the first 8, then 72 random bits.
    PushId,
    /// Text of no known family that begins with a Unix time in seconds (10 decimal digits).
    TimeTextSeconds,
    /// Text of no known family that begins with a Unix time in milliseconds (13 decimal digits).
    TimeTextMillis,
    /// A ULID's (or a timeflake's) 128 bits as hex text: milliseconds in the first 48 bits.
    UlidHexText,
    /// ULIDs (or TypeIDs) after several prefixes in one column: each prefix an append point.
    UlidPerPrefix,
    /// 40 or 64 hex digits: a SHA-1's or a SHA-256's length, random.
    ContentHash,
    RandomText,
    /// Integers the application supplies (no default), with no time in them.
    Integer,
    Expression,
    Composite,
    ApplicationSupplied,
}

impl KeyKind {
    pub const ALL: [KeyKind; 30] = [
        KeyKind::Identity,
        KeyKind::Sequence,
        KeyKind::UuidV4,
        KeyKind::UuidV7,
        KeyKind::UuidV1,
        KeyKind::UuidV6,
        KeyKind::UuidV8,
        KeyKind::UuidOther,
        KeyKind::UuidV4Text,
        KeyKind::UuidV7Text,
        KeyKind::UuidOtherText,
        KeyKind::UlidUuid,
        KeyKind::UlidText,
        KeyKind::Snowflake,
        KeyKind::SnowflakeLike,
        KeyKind::Ksuid,
        KeyKind::ObjectIdText,
        KeyKind::Cuid,
        KeyKind::Xid,
        KeyKind::PushId,
        KeyKind::TimeTextSeconds,
        KeyKind::TimeTextMillis,
        KeyKind::UlidHexText,
        KeyKind::UlidPerPrefix,
        KeyKind::ContentHash,
        KeyKind::RandomText,
        KeyKind::Integer,
        KeyKind::Expression,
        KeyKind::Composite,
        KeyKind::ApplicationSupplied,
    ];

    pub fn label(self) -> &'static str {
        match self {
            KeyKind::Identity => "identity",
            KeyKind::Sequence => "sequence",
            KeyKind::UuidV4 => "uuid v4 (random)",
            KeyKind::UuidV7 => "uuid v7",
            KeyKind::UuidV1 => "uuid v1",
            KeyKind::UuidV6 => "uuid v6",
            KeyKind::UuidV8 => "uuid v8",
            KeyKind::UuidOther => "uuid (no known version)",
            KeyKind::UuidV4Text => "uuid v4 as text",
            KeyKind::UuidV7Text => "uuid v7 as text",
            KeyKind::UuidOtherText => "uuid as text",
            KeyKind::UlidUuid => "ulid as uuid",
            KeyKind::UlidText => "ulid as text",
            KeyKind::Snowflake => "snowflake",
            KeyKind::SnowflakeLike => "snowflake-like integer",
            KeyKind::Ksuid => "ksuid",
            KeyKind::ObjectIdText => "objectid as text",
            KeyKind::Cuid => "cuid",
            KeyKind::Xid => "xid",
            KeyKind::PushId => "firebase push id",
            KeyKind::TimeTextSeconds => "time-prefixed text (seconds)",
            KeyKind::TimeTextMillis => "time-prefixed text (milliseconds)",
            KeyKind::UlidHexText => "ulid as hex text",
            KeyKind::UlidPerPrefix => "ulid as text, per prefix",
            KeyKind::ContentHash => "content hash",
            KeyKind::RandomText => "random text",
            KeyKind::Integer => "application-supplied integer",
            KeyKind::Expression => "expression",
            KeyKind::Composite => "composite",
            KeyKind::ApplicationSupplied => "application-supplied",
        }
    }

    /// The kind labelled `label` by sql/audit_values.sql; a uuid of another version as text (`uuid
    /// v1 as text`) is [`KeyKind::UuidOtherText`].
    pub fn from_label(label: &str) -> Option<KeyKind> {
        KeyKind::ALL
            .into_iter()
            .find(|k| k.label() == label)
            .or_else(|| {
                (label.starts_with("uuid ") && label.ends_with(" as text"))
                    .then_some(KeyKind::UuidOtherText)
            })
    }

    /// Keys whose new values land anywhere in the index rather than at its right edge (by what
    /// the kind is; the audit measures what the values do besides).
    pub fn is_random(self) -> bool {
        match self {
            KeyKind::UuidV4
            | KeyKind::UuidV4Text
            | KeyKind::UuidV1
            | KeyKind::UuidOther
            | KeyKind::UuidOtherText
            | KeyKind::ContentHash
            | KeyKind::RandomText => true,
            KeyKind::Identity
            | KeyKind::Sequence
            | KeyKind::UuidV7
            | KeyKind::UuidV6
            | KeyKind::UuidV8
            | KeyKind::UuidV7Text
            | KeyKind::UlidUuid
            | KeyKind::UlidText
            | KeyKind::Snowflake
            | KeyKind::SnowflakeLike
            | KeyKind::Ksuid
            | KeyKind::ObjectIdText
            | KeyKind::Cuid
            | KeyKind::Xid
            | KeyKind::PushId
            | KeyKind::TimeTextSeconds
            | KeyKind::TimeTextMillis
            | KeyKind::UlidHexText
            | KeyKind::UlidPerPrefix
            | KeyKind::Integer
            | KeyKind::Expression
            | KeyKind::Composite
            | KeyKind::ApplicationSupplied => false,
        }
    }

    /// The unit of the time a time-prefixed kind's keys begin with, where it is coarse enough
    /// that keys sharing it land at random among themselves (their tail is random): what makes a
    /// low leaf density of an ordered-looking key.
    pub fn coarse_unit(self) -> Option<&'static str> {
        match self {
            KeyKind::Ksuid | KeyKind::ObjectIdText | KeyKind::Xid | KeyKind::TimeTextSeconds => {
                Some("second")
            }
            KeyKind::UlidText
            | KeyKind::UlidUuid
            | KeyKind::UlidHexText
            | KeyKind::Cuid
            | KeyKind::PushId
            | KeyKind::TimeTextMillis => Some("millisecond"),
            _ => None,
        }
    }

    /// A uuid stored as text (36 characters, or 32 hex digits), or a ULID's or timeflake's 128
    /// bits as 32 hex digits (`id::uuid` reads them, in the same order).
    pub fn is_uuid_text(self) -> bool {
        matches!(
            self,
            KeyKind::UuidV4Text
                | KeyKind::UuidV7Text
                | KeyKind::UuidOtherText
                | KeyKind::UlidHexText
        )
    }

    /// The time in a key of this kind stored as `type_name`, as SQL over the key `k` with
    /// keybench's schema `ext`, and the function giving the smallest key of a millisecond: the
    /// kinds whose keys carry their time, in the type keybench's functions read (a Snowflake in a
    /// numeric or text column is read by none of them).
    pub fn key_time(self, ext: &str, type_name: &str) -> Option<(String, String)> {
        // (the type keybench's functions read it from, the time, the floor function)
        let (native, time, floor) = match self {
            KeyKind::UuidV7 => (
                type_name == "uuid",
                format!("{ext}.uuid_extract_timestamp(k)"),
                format!("{ext}.uuidv7_floor"),
            ),
            KeyKind::UlidUuid => (
                type_name == "uuid",
                format!("{ext}.ulid_extract_timestamp({ext}.uuid_to_ulid(k))"),
                format!("{ext}.ulid_uuid_floor"),
            ),
            KeyKind::UlidText => (
                is_text_type(type_name),
                format!("{ext}.ulid_extract_timestamp(k)"),
                format!("{ext}.ulid_floor"),
            ),
            KeyKind::Snowflake => (
                type_name == "bigint",
                format!("{ext}.snowflake_timestamp(k)"),
                format!("{ext}.snowflake_floor"),
            ),
            KeyKind::Identity
            | KeyKind::Sequence
            | KeyKind::UuidV4
            | KeyKind::UuidV1
            | KeyKind::UuidV6
            | KeyKind::UuidV8
            | KeyKind::UuidOther
            | KeyKind::UuidV4Text
            | KeyKind::UuidV7Text
            | KeyKind::UuidOtherText
            | KeyKind::SnowflakeLike
            | KeyKind::Ksuid
            | KeyKind::ObjectIdText
            | KeyKind::Cuid
            | KeyKind::Xid
            | KeyKind::PushId
            | KeyKind::TimeTextSeconds
            | KeyKind::TimeTextMillis
            | KeyKind::UlidHexText
            | KeyKind::UlidPerPrefix
            | KeyKind::ContentHash
            | KeyKind::RandomText
            | KeyKind::Integer
            | KeyKind::Expression
            | KeyKind::Composite
            | KeyKind::ApplicationSupplied => return None,
        };
        native.then_some((time, floor))
    }
}

pub fn is_text_type(t: &str) -> bool {
    t == "text" || t.starts_with("character") || t == "name"
}
