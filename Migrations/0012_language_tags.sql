-- Languages are stored as their canonical BCP 47 tags (docs/rules.md#languages): an advanced experience's
-- language is the lower-case primary language subtag (`fr`), where earlier versions stored Apple's
-- upper-case enumeration value (`FR`), which is what App Store Connect is still sent. Change records keep
-- the spelling of their time. Default-experience locales stored as given by earlier versions (`fr`,
-- `en-us`) are read as the App Store locale they name (ClipStore's loadDefaultExperience).
UPDATE advanced_experience SET default_language = lower(default_language) WHERE default_language <> lower(default_language);
UPDATE advanced_experience_localization SET language = lower(language) WHERE language <> lower(language);
