import TidingsSDK
